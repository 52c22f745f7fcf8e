/* Fake sequencer and NAND die behind the host HAL (see hal_host.h). */
#ifndef NANDLAB_FAKE_SEQ_H
#define NANDLAB_FAKE_SEQ_H

#include "hal_host.h"

void fake_seq_reset(const struct fake_cfg *cfg);
void fake_seq_soft_reset(void);

#endif
