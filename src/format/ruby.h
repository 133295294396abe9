/* SPDX-License-Identifier: Apache-2.0 */
/* ruby.h: the Ruby heap-dump reader (`ObjectSpace.dump_all` JSON lines, format layer), prefix
 * ruby_. Objects, their classes (CLASS/MODULE records), memsize as shallow size, unnamed
 * references as numbered edges and the ROOT categories as typed GC roots; gzip accepted like
 * every input. Mapping and limits: docs/formats/ruby.md. */
#ifndef LR_FORMAT_RUBY_H
#define LR_FORMAT_RUBY_H

#include "format/fmt.h"

extern const fmt_reader fmt_ruby_reader;

/* Nonzero if the first line of p[0..n) is a dump_all line (a ROOT or an object record). */
int ruby_sniff(const uint8_t *p, uint64_t n);

#endif
