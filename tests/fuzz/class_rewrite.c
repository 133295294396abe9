/* SPDX-License-Identifier: Apache-2.0 */
/* class_rewrite.c: libFuzzer target for the JVM agent's class-file rewriter
 * (agents/jvmti/rewrite.c, compiled in here: the agent is not part of the library). Any bytes
 * must be rewritten or refused, never crash, read out of bounds or leak; a rewritten class is
 * rewritten again (a retransformation can meet an already hooked class), and then must still
 * be a class file the rewriter accepts. The corpus holds real classes written by javac
 * (closeable, dispose and switch-heavy methods) and truncations of them. */
#include "../agents/jvmti/rewrite.c"

#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const rw_target targets[] = {{"close", "()V", 0},
                                        {"dispose", "()V", 1},
                                        {"pick", "(I)I", 2}};
    unsigned char *out = NULL;
    size_t n = 0;
    int rc = rw_rewrite(data, size, targets, 3, "leakray/AppWatcher", "returned", &out, &n);
    if (rc > 0) {
        unsigned char *again = NULL;
        size_t n2 = 0;
        if (rw_rewrite(out, n, targets, 3, "leakray/AppWatcher", "returned", &again, &n2) < 0)
            __builtin_trap(); /* our own output must parse */
        free(again);
        free(out);
    }
    return 0;
}
