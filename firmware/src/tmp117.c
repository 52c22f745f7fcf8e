/* TI TMP117 digital temperature sensor over the board's I2C (hal_i2c_*), the
 * temperature input of the limits and the thermal loop. Register map from the
 * datasheet (SNOSD82D, section 7.6): Temp_Result 00h (two's complement,
 * 7.8125 m°C a bit, 8000h until the first conversion after a reset),
 * Configuration 01h, Device_ID 0Fh (DID[11:0] = 117h). */
#include "fwint.h"
#include "hal.h"

#define TMP117_TEMP_RESULT 0x00u
#define TMP117_CONFIGURATION 0x01u
#define TMP117_DEVICE_ID 0x0Fu
#define TMP117_DID 0x117u
#define TMP117_DID_MASK 0x0FFFu
#define TMP117_NO_RESULT 0x8000u
/* Continuous conversion (MOD 00), no averaging (AVG 00), CONV 000: a new
 * result every 15.5 ms (Table 7-7), well inside the loop's 100 ms step. */
#define TMP117_CONFIG_VALUE 0x0000u

static bool r16(uint8_t addr, uint8_t reg, uint32_t *v)
{
    uint8_t b[2];
    if (!hal_i2c_read(addr, reg, b, 2)) {
        return false;
    }
    *v = (uint32_t)b[0] << 8 | b[1];
    return true;
}

bool tmp117_read_mC(uint8_t addr, int32_t *mC)
{
    static bool configured;
    uint32_t v;
    if (!configured) {
        uint8_t cfg[2] = {TMP117_CONFIG_VALUE >> 8, TMP117_CONFIG_VALUE & 0xFFu};
        if (!r16(addr, TMP117_DEVICE_ID, &v) || (v & TMP117_DID_MASK) != TMP117_DID ||
            !hal_i2c_write(addr, TMP117_CONFIGURATION, cfg, 2)) {
            return false;
        }
        configured = true;
    }
    if (!r16(addr, TMP117_TEMP_RESULT, &v)) {
        configured = false; /* gone: check it again when it answers */
        return false;
    }
    if (v == TMP117_NO_RESULT) {
        return false;
    }
    /* sign-extend, then 7.8125 m°C = 125/16 m°C a bit */
    *mC = ((int32_t)(v ^ 0x8000u) - 0x8000) * 125 / 16;
    return true;
}
