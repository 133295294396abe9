/* SPDX-License-Identifier: Apache-2.0 */
/* dart_load.c: libFuzzer target for the Dart VM heap snapshot reader (both layouts).
 * The bytes go straight into fmt_dart_reader and what loads is walked and analysed
 * (load_walk.h). Built with tests/fuzz/replay_main.c it replays tests/fuzz/corpus/dart_load/ in
 * make test. */
#include "format/dart.h"
#include "load_walk.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fuzz_load_walk(&fmt_dart_reader, "fuzz.dartheap", data, size);
}
