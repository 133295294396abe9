/* SPDX-License-Identifier: Apache-2.0 */
/* ruby_load.c: libFuzzer target for the Ruby heap-dump reader (ObjectSpace.dump_all JSON lines).
 * The bytes go straight into fmt_ruby_reader and what loads is walked and analysed
 * (load_walk.h). Built with tests/fuzz/replay_main.c it replays tests/fuzz/corpus/ruby_load/ in
 * make test. */
#include "format/ruby.h"
#include "load_walk.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fuzz_load_walk(&fmt_ruby_reader, "fuzz.json", data, size);
}
