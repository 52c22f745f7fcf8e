/* The job's result ring: records go to shared RAM and MBX_RES_HEAD moves past
 * each whole record, so the host never reads half a record. */
#include <stddef.h>

#include "fwint.h"
#include "hal.h"
#include "nandlab_regs.h"

void ring_open(struct ring *r, uint32_t *base, uint32_t words)
{
    r->base = base;
    r->words = words;
    r->head = 0; /* MBX_RES_HEAD / TAIL were zeroed before the job showed BUSY */
}

uint32_t ring_room(const struct ring *r)
{
    uint32_t tail = hal_reg_read(offsetof(nandlab_regs_t, MBX_RES_TAIL));
    /* head and tail wrap at 2^32: their difference is the fill level. */
    uint32_t used = r->head - tail;
    return used > r->words ? 0 : r->words - used;
}

bool ring_put(struct ring *r, const uint32_t *w, uint32_t n)
{
    if (n > ring_room(r)) {
        return false;
    }
    /* One division per record, none per word (the CPU divides in ~40 clocks). */
    uint32_t at = r->head % r->words;
    for (uint32_t i = 0; i < n; i++) {
        r->base[at] = w[i];
        if (++at == r->words) {
            at = 0;
        }
    }
    r->head += n;
    hal_reg_write(offsetof(nandlab_regs_t, MBX_RES_HEAD), r->head);
    return true;
}
