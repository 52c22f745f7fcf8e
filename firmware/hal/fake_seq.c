/* Fake sequencer: runs a whole op program once its END word arrives, against
 * a fake NAND die, and queues the result stream (contract 1). It is written
 * from the op program spec (host/nandlab/ops/spec.yaml), not from the
 * firmware's own helpers, so the tests check the firmware against the spec. */
#include <stddef.h>
#include <string.h>

#include "fake_seq.h"
#include "hal.h"
#include "nandlab_ops.h"

#define TX_WORDS 2048u
#define RX_WORDS 4096u
/* Time one empty poll of the result port costs: lets a watchdog expire. */
#define POLL_NS 1000u

static struct fake_cfg cfg;
static struct fake_stats stats;
static uint8_t die[FAKE_MAX_BLOCKS][FAKE_MAX_PAGES][FAKE_MAX_PAGE_BYTES];
static uint8_t buf[FAKE_MAX_PAGE_BYTES];
static uint32_t tx[TX_WORDS], tx_n;
static uint32_t rx[RX_WORDS], rx_head, rx_tail;
static uint64_t now_ns;
static uint32_t tx_log[FAKE_TX_LOG_WORDS], tx_log_n;
static bool rb_stuck, hang;

/* Die state between instructions. */
static uint8_t cmd, status, addr[8];
static uint32_t naddr, column, feature_param_n;
static bool status_mode;
static uint64_t busy_ns; /* R/B# low time the next WAIT_RDY sees */

struct fake_stats *hal_host_stats(void) { return &stats; }
uint8_t *hal_host_page(uint32_t block, uint32_t page) { return die[block][page]; }
void hal_host_rb_stuck(bool stuck) { rb_stuck = stuck; }
void hal_host_seq_hang(bool h) { hang = h; }
uint64_t hal_time_ns(void) { return now_ns; }
void hal_host_advance_ns(uint64_t ns) { now_ns += ns; }

uint32_t hal_host_flips(uint32_t pe, int32_t offset)
{
    int32_t d = offset - cfg.best_offset;
    uint32_t n = pe * cfg.flips_per_kpe / 1000u + (uint32_t)(d < 0 ? -d : d) * cfg.flips_per_step;
    return n < cfg.page_bytes * 8u ? n : cfg.page_bytes * 8u;
}

void fake_seq_soft_reset(void)
{
    tx_n = 0;
    rx_head = rx_tail = 0;
    stats.soft_resets++;
}

void fake_seq_reset(const struct fake_cfg *c)
{
    cfg = *c;
    memset(&stats, 0, sizeof stats);
    memset(die, 0xFF, sizeof die);
    tx_n = rx_head = rx_tail = 0;
    tx_log_n = 0;
    now_ns = 0;
    rb_stuck = hang = false;
    cmd = 0;
    status = 0xE0;
    naddr = column = 0;
    status_mode = false;
    busy_ns = 0;
}

static void out(uint32_t w)
{
    if (rx_tail - rx_head < RX_WORDS) {
        rx[rx_tail++ % RX_WORDS] = w;
    }
}

static void out_rec(uint32_t tag, uint32_t arg) { out(tag << 24 | (arg & 0xFFFFFFu)); }

/* The pattern generator's byte stream (spec.yaml, "pattern"). */
static void pattern(uint32_t word, uint32_t seed, uint8_t *dst, uint32_t n)
{
    uint32_t kind = word & 0xFFu, invert = (word >> 8) & 1u, param = (word >> 16) & 0xFFu;
    uint32_t x = seed ? seed : NANDLAB_OPS_PRBS_DEFAULT_SEED;
    for (uint32_t i = 0; i < n; i++) {
        uint8_t b;
        if (kind == NANDLAB_PAT_CONST) {
            b = (uint8_t)param;
        } else if (kind == NANDLAB_PAT_CHECKER) {
            b = param ? NANDLAB_OPS_CHECKER_BYTE_1 : NANDLAB_OPS_CHECKER_BYTE_0;
        } else {
            if (i % 4 == 0) {
                x ^= x << 13;
                x ^= x >> 17;
                x ^= x << 5;
            }
            b = (uint8_t)(x >> (8 * (i % 4)));
        }
        dst[i] = invert ? (uint8_t)~b : b;
    }
}

static uint32_t row(void) { return (uint32_t)addr[2] | (uint32_t)addr[3] << 8 | (uint32_t)addr[4] << 16; }

static bool locate(uint32_t r, uint32_t *blk, uint32_t *pg)
{
    *blk = r / cfg.pages;
    *pg = r % cfg.pages;
    return *blk < cfg.blocks;
}

/* The read: the page with the die's bit errors at spread-out positions (7919
 * is prime, so the positions are distinct within a page). */
static void load_page(void)
{
    uint32_t blk, pg;
    stats.reads++;
    if (!locate(row(), &blk, &pg)) {
        memset(buf, 0xFF, cfg.page_bytes);
        return;
    }
    memcpy(buf, die[blk][pg], cfg.page_bytes);
    uint32_t bits = cfg.page_bytes * 8u, flips = hal_host_flips(stats.pe[blk], stats.offset);
    flips += stats.block_reads[blk] * cfg.flips_per_kread / 1000u;
    flips = flips < bits ? flips : bits;
    stats.block_reads[blk]++;
    for (uint32_t k = 0; k < flips; k++) {
        uint32_t bit = (k * 7919u + pg * 31u) % bits;
        buf[bit / 8] ^= (uint8_t)(1u << (bit % 8));
    }
}

static void latch_cmd(uint8_t b)
{
    uint32_t blk, pg;
    stats.cmd_count[b]++;
    status_mode = false;
    switch (b) {
    case 0x70:
        status_mode = true;
        return;
    case 0xFF:
        stats.resets++;
        busy_ns = FAKE_T_RST_NS;
        break;
    case 0x80:
        memset(buf, 0xFF, cfg.page_bytes);
        break;
    case 0xD0:
        if (cmd == 0x60 && locate(row(), &blk, &pg)) {
            memset(die[blk], 0xFF, sizeof die[blk]);
            stats.pe[blk]++;
            stats.block_reads[blk] = 0;
            stats.erases++;
            status = 0xE0 | (stats.pe[blk] > cfg.endurance ? 1u : 0u);
            busy_ns = FAKE_T_BERS_NS;
        }
        break;
    case 0x10:
        if (cmd == 0x80 && locate(row(), &blk, &pg)) {
            for (uint32_t i = 0; i < cfg.page_bytes; i++) {
                die[blk][pg][i] &= buf[i]; /* programming only clears bits */
            }
            stats.programs++;
            status = 0xE0 | (stats.pe[blk] > cfg.endurance ? 1u : 0u);
            busy_ns = FAKE_T_PROG_NS;
        }
        break;
    case 0x30:
        if (cmd == 0x00) {
            load_page();
            busy_ns = FAKE_T_R_NS;
        }
        break;
    default:
        break;
    }
    if (b == 0x60 || b == 0x80 || b == 0x00 || b == 0xEF) {
        naddr = 0;
        feature_param_n = 0;
    }
    cmd = b;
}

static void data_in(const uint8_t *src, uint32_t n)
{
    if (cmd == 0xEF) {
        /* P1 of the read-offset feature is the offset, a signed byte. */
        if (feature_param_n == 0 && addr[0] == cfg.offset_feature) {
            stats.offset = (int8_t)src[0];
        }
        feature_param_n += n;
        if (feature_param_n >= 4) {
            stats.set_features++;
            busy_ns = FAKE_T_FEAT_NS;
        }
        return;
    }
    for (uint32_t i = 0; i < n && column + i < cfg.page_bytes; i++) {
        buf[column + i] = src[i];
    }
    column += n;
}

static uint8_t data_out(uint32_t i) { return status_mode ? status : buf[(column + i) % cfg.page_bytes]; }

static void dout(uint32_t n)
{
    out_rec(NANDLAB_RES_DATA, n);
    for (uint32_t i = 0; i < n; i += 4) {
        uint32_t w = 0;
        for (uint32_t k = 0; k < 4 && i + k < n; k++) {
            w |= (uint32_t)data_out(i + k) << (8 * k);
        }
        out(w);
    }
    column += n;
}

static void dout_cmp(uint32_t n, uint32_t pat, uint32_t seed, uint32_t chunk)
{
    static uint8_t expect[FAKE_MAX_PAGE_BYTES];
    uint32_t chunks = (n + chunk - 1) / chunk;
    pattern(pat, seed, expect, n < FAKE_MAX_PAGE_BYTES ? n : FAKE_MAX_PAGE_BYTES);
    out_rec(NANDLAB_RES_ERRCNT, chunks);
    out(chunk);
    for (uint32_t c = 0; c < chunks; c++) {
        uint32_t e01 = 0, e10 = 0;
        for (uint32_t i = c * chunk; i < n && i < (c + 1) * chunk; i++) {
            uint8_t want = i < FAKE_MAX_PAGE_BYTES ? expect[i] : 0;
            uint8_t got = data_out(i);
            e01 += (uint32_t)__builtin_popcount((uint8_t)(~want & got));
            e10 += (uint32_t)__builtin_popcount((uint8_t)(want & ~got));
        }
        out(e01);
        out(e10);
    }
    column += n;
}

static void unpack(const uint32_t *w, uint8_t *dst, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        dst[i] = (uint8_t)(w[i / 4] >> (8 * (i % 4)));
    }
}

/* Words of the instruction at tx[i] as the spec lays them out (0: unknown). */
static uint32_t instr_words(uint32_t h)
{
    uint32_t n = h & 0xFFFFFFu;
    switch (h >> 24) {
    case NANDLAB_OP_ADDR: case NANDLAB_OP_DIN: return 1 + (n + 3) / 4;
    case NANDLAB_OP_DIN_PAT: return 3;
    case NANDLAB_OP_DOUT_CMP: return 4;
    case NANDLAB_OP_WAIT_RDY: return 2;
    case NANDLAB_OP_POWER: return (h & 1u) ? 2 : 1;
    case NANDLAB_OP_END: case NANDLAB_OP_CE: case NANDLAB_OP_CMD: case NANDLAB_OP_DOUT:
    case NANDLAB_OP_DELAY: case NANDLAB_OP_MARK: case NANDLAB_OP_TIMING: case NANDLAB_OP_GPIO:
        return 1;
    default: return 0;
    }
}

static void fail(uint32_t code, uint32_t index)
{
    out_rec(NANDLAB_RES_ERROR, code);
    out(index);
}

static void execute(void)
{
    uint64_t start = now_ns;
    uint8_t bytes[FAKE_MAX_PAGE_BYTES];
    uint32_t index = 0;
    stats.programs_run++;
    for (uint32_t i = 0; i < tx_n; i += instr_words(tx[i]), index++) {
        uint32_t h = tx[i], n = h & 0xFFFFFFu;
        switch (h >> 24) {
        case NANDLAB_OP_END:
            i = tx_n;
            break;
        case NANDLAB_OP_CE:
            if (n != 0) {
                fail(NANDLAB_ERR_NO_TARGET, index);
                i = tx_n;
            }
            break;
        case NANDLAB_OP_CMD:
            latch_cmd((uint8_t)n);
            break;
        case NANDLAB_OP_ADDR:
            unpack(&tx[i + 1], addr, n);
            naddr = n;
            column = n == 5 ? (uint32_t)addr[0] | (uint32_t)addr[1] << 8 : 0;
            if (n == 3) {
                /* an erase's row address alone */
                memmove(addr + 2, addr, 3);
            }
            break;
        case NANDLAB_OP_DIN:
            unpack(&tx[i + 1], bytes, n < sizeof bytes ? n : sizeof bytes);
            data_in(bytes, n < sizeof bytes ? n : sizeof bytes);
            break;
        case NANDLAB_OP_DIN_PAT:
            pattern(tx[i + 1], tx[i + 2], bytes, n < sizeof bytes ? n : sizeof bytes);
            data_in(bytes, n < sizeof bytes ? n : sizeof bytes);
            break;
        case NANDLAB_OP_DOUT:
            dout(n);
            break;
        case NANDLAB_OP_DOUT_CMP:
            dout_cmp(n, tx[i + 1], tx[i + 2], tx[i + 3]);
            break;
        case NANDLAB_OP_WAIT_RDY:
            if (rb_stuck) {
                now_ns += tx[i + 1];
                fail(NANDLAB_ERR_TIMEOUT, index);
                i = tx_n;
                break;
            }
            out_rec(NANDLAB_RES_BUSY, index);
            out((uint32_t)busy_ns);
            now_ns += busy_ns;
            busy_ns = 0;
            break;
        case NANDLAB_OP_DELAY:
            now_ns += n;
            break;
        default:
            break;
        }
    }
    uint64_t elapsed = now_ns - start;
    out_rec(NANDLAB_RES_END, 0);
    out((uint32_t)elapsed);
    out((uint32_t)(elapsed >> 32));
    tx_n = 0;
}

uint32_t hal_seq_tx_vacancy(void) { return TX_WORDS - tx_n; }

const uint32_t *hal_host_tx_log(uint32_t *n)
{
    *n = tx_log_n;
    return tx_log;
}

void hal_seq_tx(uint32_t word, bool last)
{
    if (tx_log_n < FAKE_TX_LOG_WORDS) {
        tx_log[tx_log_n++] = word;
    }
    if (tx_n < TX_WORDS) {
        tx[tx_n++] = word;
    }
    if (!last) {
        return;
    }
    /* The sequencer checks the program up to its tlast word, then runs it. */
    for (uint32_t i = 0, index = 0; i < tx_n; index++) {
        uint32_t w = instr_words(tx[i]);
        if (w == 0 || i + w > tx_n) {
            if (!hang) {
                fail(w == 0 ? NANDLAB_ERR_BAD_OPCODE : NANDLAB_ERR_TRUNCATED, index);
                out_rec(NANDLAB_RES_END, 0);
                out(0);
                out(0);
            }
            tx_n = 0;
            return;
        }
        i += w;
    }
    if (hang) {
        tx_n = 0;
    } else {
        execute();
    }
}

void hal_seq_tx_block(const uint32_t *w, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        hal_seq_tx(w[i], i + 1 == n);
    }
}

uint32_t hal_seq_rx_occupancy(void)
{
    if (rx_tail == rx_head) {
        now_ns += POLL_NS;
    }
    return rx_tail - rx_head;
}

uint32_t hal_seq_rx(void) { return rx[rx_head++ % RX_WORDS]; }
