/* INA226 / INA228 shunt monitor driver over the board's I2C (hal_i2c_*).
 * Register addresses, IDs and settings come from the generated
 * ina2xx_regs.h, whose source the host's driver (nandlab.instruments.ina2xx)
 * reads too; the calibration formulas are the datasheets'. */
#include "fwint.h"
#include "hal.h"
#include "ina2xx_regs.h"

static bool r16(const struct ina *d, uint8_t reg, uint32_t *v)
{
    uint8_t b[2];
    if (!hal_i2c_read(d->addr, reg, b, 2)) {
        return false;
    }
    *v = (uint32_t)b[0] << 8 | b[1];
    return true;
}

static bool r24(const struct ina *d, uint8_t reg, uint32_t *v)
{
    uint8_t b[3];
    if (!hal_i2c_read(d->addr, reg, b, 3)) {
        return false;
    }
    *v = (uint32_t)b[0] << 16 | (uint32_t)b[1] << 8 | b[2];
    return true;
}

static bool w16(const struct ina *d, uint8_t reg, uint32_t v)
{
    uint8_t b[2] = {(uint8_t)(v >> 8), (uint8_t)v};
    return hal_i2c_write(d->addr, reg, b, 2);
}

/* Calibration register value, rounded, from shunt (µΩ) and max current (mA):
 * INA226 CALIBRATION = 0.00512 / (LSB x R) with LSB = max / 2^15, which is
 * 0.00512 x 2^15 x 10^9 / (mA x µΩ); INA228 SHUNT_CAL = 13107.2e6 x LSB x R
 * with LSB = max / 2^19, which is mA x µΩ / 40 000. 0 when out of range. */
static uint32_t calibration(const struct ina *d)
{
    uint64_t prod = (uint64_t)d->max_mA * d->shunt_uohm;
    uint64_t cal;
    if (prod == 0) {
        return 0;
    }
    if (d->ina228) {
        cal = (prod + 20000u) / 40000u;
    } else {
        cal = (167772160000ull + prod / 2u) / prod;
    }
    return cal > 0 && cal < 0x8000u ? (uint32_t)cal : 0;
}

int ina_configure(const struct ina *d)
{
    uint32_t maker, die;
    uint8_t id = d->ina228 ? INA228_MANUFACTURER_ID : INA226_MANUFACTURER_ID;
    uint8_t die_reg = d->ina228 ? INA228_DIE_ID : INA226_DIE_ID;
    if (!r16(d, id, &maker) || !r16(d, die_reg, &die)) {
        return INA_NO_ANSWER;
    }
    die >>= d->ina228 ? INA228_DIE_SHIFT : INA226_DIE_SHIFT;
    if (maker != INA_TI_ID || die != (d->ina228 ? INA228_DIE : INA226_DIE)) {
        return INA_WRONG_ID;
    }
    uint32_t cal = calibration(d);
    if (cal == 0) {
        return INA_BAD_CALIBRATION;
    }
    bool ok = w16(d, d->ina228 ? INA228_CONFIG : INA226_CONFIG, INA_RESET);
    if (d->ina228) {
        ok = ok && w16(d, INA228_CONFIG_REG, INA228_CONFIG_VALUE) &&
             w16(d, INA228_SHUNT_CAL, cal);
    } else {
        ok = ok && w16(d, INA226_CONFIG_REG, INA226_CONFIG_VALUE) &&
             w16(d, INA226_CALIBRATION, cal);
    }
    return ok ? INA_OK : INA_NO_ANSWER;
}

bool ina_current_uA(const struct ina *d, int32_t *uA)
{
    uint32_t raw;
    int64_t value;
    uint32_t bits;
    if (d->ina228) {
        if (!r24(d, INA228_CURRENT, &raw)) {
            return false;
        }
        raw >>= 4; /* 20 bits in [23:4] */
        bits = INA228_CURRENT_BITS;
    } else {
        if (!r16(d, INA226_CURRENT, &raw)) {
            return false;
        }
        bits = INA226_CURRENT_BITS;
    }
    /* sign-extend the `bits`-wide two's complement result */
    value = (int64_t)(raw ^ (1u << (bits - 1))) - (int64_t)(1u << (bits - 1));
    /* current LSB = max / 2^(bits - 1): µA = raw x mA x 1000 / 2^(bits - 1) */
    *uA = (int32_t)((value * (int64_t)d->max_mA * 1000) / (int64_t)(1u << (bits - 1)));
    return true;
}
