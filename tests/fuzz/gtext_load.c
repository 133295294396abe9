/* SPDX-License-Identifier: Apache-2.0 */
/* gtext_load.c: libFuzzer target for the generic JSON-lines graph reader (records in any order).
 * The bytes go straight into fmt_gtext_reader and what loads is walked and analysed
 * (load_walk.h). Built with tests/fuzz/replay_main.c it replays tests/fuzz/corpus/gtext_load/ in
 * make test. */
#include "format/gtext.h"
#include "load_walk.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fuzz_load_walk(&fmt_gtext_reader, "fuzz.jsonl", data, size);
}
