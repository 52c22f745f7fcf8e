/* Board CPU entry: serve the mailbox for ever (crt0 from picolibc). */
#include "fw.h"

int main(void)
{
    fw_init();
    for (;;) {
        fw_poll();
    }
}
