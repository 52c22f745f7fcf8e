/* Op program builder: the loops assemble their erase / program / read steps
 * here, in the encoding of firmware/include/nandlab_ops.h. */
#include "fwint.h"

#include "nandlab_ops.h"

static void put(struct prog *p, uint32_t w)
{
    if (p->n < p->cap) {
        p->w[p->n++] = w;
    } else {
        p->overflow = true;
    }
}

static void op(struct prog *p, uint32_t opcode, uint32_t arg)
{
    put(p, opcode << NANDLAB_OPS_HEADER_CODE_LSB | (arg & 0xFFFFFFu));
}

/* Bytes packed four to a word, first byte in bits 7:0 (contract 1). */
static void put_bytes(struct prog *p, const uint8_t *bytes, uint32_t n)
{
    for (uint32_t i = 0; i < n; i += 4) {
        uint32_t w = 0;
        for (uint32_t k = 0; k < 4 && i + k < n; k++) {
            w |= (uint32_t)bytes[i + k] << (8 * k);
        }
        put(p, w);
    }
}

void prog_init(struct prog *p, uint32_t *buf, uint32_t cap)
{
    p->w = buf;
    p->n = 0;
    p->cap = cap;
    p->overflow = false;
}

void prog_ce(struct prog *p, uint32_t target) { op(p, NANDLAB_OP_CE, target); }

void prog_cmd(struct prog *p, uint8_t cmd) { op(p, NANDLAB_OP_CMD, cmd); }

void prog_addr(struct prog *p, const uint8_t *bytes, uint32_t n)
{
    op(p, NANDLAB_OP_ADDR, n);
    put_bytes(p, bytes, n);
}

/* ONFI addressing of the supported parts: 2 column bytes, 3 row bytes. */
void prog_row_addr(struct prog *p, uint32_t row, bool with_column)
{
    uint8_t a[5] = {0, 0, (uint8_t)row, (uint8_t)(row >> 8), (uint8_t)(row >> 16)};
    if (with_column) {
        prog_addr(p, a, 5);
    } else {
        prog_addr(p, a + 2, 3);
    }
}

void prog_din(struct prog *p, const uint8_t *bytes, uint32_t n)
{
    op(p, NANDLAB_OP_DIN, n);
    put_bytes(p, bytes, n);
}

void prog_din_pat(struct prog *p, uint32_t n, uint32_t pattern, uint32_t seed)
{
    op(p, NANDLAB_OP_DIN_PAT, n);
    put(p, pattern);
    put(p, seed);
}

void prog_dout(struct prog *p, uint32_t n) { op(p, NANDLAB_OP_DOUT, n); }

void prog_dout_cmp(struct prog *p, uint32_t n, uint32_t pattern, uint32_t seed, uint32_t chunk)
{
    op(p, NANDLAB_OP_DOUT_CMP, n);
    put(p, pattern);
    put(p, seed);
    put(p, chunk);
}

void prog_wait_rdy(struct prog *p, uint32_t timeout_ns)
{
    op(p, NANDLAB_OP_WAIT_RDY, 0);
    put(p, timeout_ns);
}

void prog_delay(struct prog *p, uint32_t ns) { op(p, NANDLAB_OP_DELAY, ns); }

void prog_end(struct prog *p) { op(p, NANDLAB_OP_END, 0); }
