/* Reading op programs (lengths, permits, watchdog budget) and result streams. */
#include "fwint.h"

#include "nandlab_ops.h"

#define CODE(w) ((w) >> NANDLAB_OPS_HEADER_CODE_LSB)
#define ARG(w) ((w) & 0xFFFFFFu)
#define WORDS_OF_BYTES(n) (((n) + 3u) / 4u)

/* Slowest bus: SDR mode 0 moves a byte per tRC / tWC = 100 ns. */
#define NS_PER_BUS_BYTE 100u
/* Room for the sequencer's own latency and the command / address cycles. */
#define WATCHDOG_MARGIN_NS 1000000u

uint32_t scan_instr_words(const uint32_t *prog, uint32_t n, uint32_t i)
{
    uint32_t h = prog[i];
    uint32_t len;
    switch (CODE(h)) {
    case NANDLAB_OP_END:
    case NANDLAB_OP_CE:
    case NANDLAB_OP_CMD:
    case NANDLAB_OP_DOUT:
    case NANDLAB_OP_DELAY:
    case NANDLAB_OP_MARK:
    case NANDLAB_OP_TIMING:
    case NANDLAB_OP_GPIO:
        len = 1;
        break;
    case NANDLAB_OP_ADDR:
        if (ARG(h) < NANDLAB_OP_ADDR_N_MIN || ARG(h) > NANDLAB_OP_ADDR_N_MAX) {
            return 0;
        }
        len = 1 + WORDS_OF_BYTES(ARG(h));
        break;
    case NANDLAB_OP_DIN:
        if (ARG(h) == 0) {
            return 0;
        }
        len = 1 + WORDS_OF_BYTES(ARG(h));
        break;
    case NANDLAB_OP_DIN_PAT:
        len = 3;
        break;
    case NANDLAB_OP_DOUT_CMP:
        len = 4;
        break;
    case NANDLAB_OP_WAIT_RDY:
        len = 2;
        break;
    case NANDLAB_OP_POWER:
        len = (h & 1u) ? 2 : 1;
        break;
    default:
        return 0;
    }
    return len <= n - i ? len : 0;
}

uint32_t scan_record_words(uint32_t header)
{
    uint32_t n = ARG(header);
    switch (CODE(header)) {
    case NANDLAB_RES_DATA:
        return 1 + WORDS_OF_BYTES(n);
    case NANDLAB_RES_BUSY:
    case NANDLAB_RES_ERROR:
        return 2;
    case NANDLAB_RES_ERRCNT:
        return 2 + 2 * n;
    case NANDLAB_RES_POWER:
        return 2 + n;
    case NANDLAB_RES_MARK:
    case NANDLAB_RES_END:
        return 3;
    default:
        return 0;
    }
}

/* The permit a command byte needs. ONFI's erase and program opcodes need
 * theirs; every byte outside the ONFI command set is a vendor / test-mode
 * command. */
static uint32_t cmd_permit(uint32_t b)
{
    switch (b) {
    case 0x60: case 0xD0: case 0xD1:
        return FW_PERMIT_ERASE;
    case 0x80: case 0x81: case 0x85: case 0x10: case 0x11: case 0x15:
        return FW_PERMIT_PROGRAM;
    case 0x00: case 0x05: case 0x06: case 0x30: case 0x31: case 0x32: case 0x35:
    case 0x3F: case 0x70: case 0x78: case 0x90: case 0xE0: case 0xEC: case 0xED:
    case 0xEE: case 0xEF: case 0xFA: case 0xFC: case 0xFF:
        return 0;
    default:
        return FW_PERMIT_TEST_MODE;
    }
}

int scan_program(const uint32_t *prog, uint32_t n, uint32_t permits, uint32_t *detail,
                 uint32_t *used, uint64_t *watchdog_ns)
{
    uint64_t budget = WATCHDOG_MARGIN_NS;
    uint32_t i = 0;
    while (i < n) {
        uint32_t h = prog[i];
        uint32_t len = scan_instr_words(prog, n, i);
        if (len == 0) {
            *detail = i;
            return FW_ERR_BAD_PROGRAM;
        }
        switch (CODE(h)) {
        case NANDLAB_OP_END:
            *used = i + 1;
            *watchdog_ns = budget;
            return FW_OK;
        case NANDLAB_OP_CMD: {
            uint32_t need = cmd_permit(ARG(h) & 0xFFu);
            if ((permits & need) != need) {
                *detail = i;
                return FW_ERR_NOT_PERMITTED;
            }
            break;
        }
        case NANDLAB_OP_GPIO: {
            /* Raising WP# unlocks writes: only with an erase or program permit. */
            uint32_t wp = 1u << NANDLAB_OPS_GPIO_WP_N_LSB;
            bool raise = (ARG(h) >> NANDLAB_OP_GPIO_MASK_LSB) & (ARG(h) & wp);
            if (raise && !(permits & (FW_PERMIT_ERASE | FW_PERMIT_PROGRAM))) {
                *detail = i;
                return FW_ERR_NOT_PERMITTED;
            }
            break;
        }
        case NANDLAB_OP_DIN:
        case NANDLAB_OP_DIN_PAT:
        case NANDLAB_OP_DOUT:
        case NANDLAB_OP_DOUT_CMP:
            budget += (uint64_t)ARG(h) * NS_PER_BUS_BYTE;
            break;
        case NANDLAB_OP_WAIT_RDY:
            budget += prog[i + 1];
            break;
        case NANDLAB_OP_DELAY:
            budget += ARG(h);
            break;
        default:
            break;
        }
        i += len;
    }
    *detail = n;
    return FW_ERR_BAD_PROGRAM;
}
