/* SPDX-License-Identifier: Apache-2.0 */
/* ruby.h: the Ruby heap-dump reader (`ObjectSpace.dump_all` JSON lines, format layer), prefix
 * ruby_. Objects, their classes (CLASS/MODULE records), memsize as shallow size, unnamed
 * references as numbered edges and the ROOT categories as typed GC roots; gzip accepted like
 * every input. Mapping and limits: docs/formats/ruby.md. */
#ifndef LR_FORMAT_RUBY_H
#define LR_FORMAT_RUBY_H

#include "format/fmt.h"

extern const fmt_reader fmt_ruby_reader;

/* An allocation site (with ObjectSpace.trace_object_allocations on): the source file, the
 * line, and the method whose call allocated ("new", "*", ...; "" when the dump has none). */
typedef struct ruby_site {
    str_ix file;
    uint32_t line;
    str_ix method;
} ruby_site;

/* Node n's allocation site as an index (1 .. sites; equal sites share one), 0 when the dump
 * recorded none for it or g is no Ruby dump. */
uint32_t ruby_site_of(const graph *g, node_ix n);
/* The site with that index, or NULL. */
const ruby_site *ruby_site_get(const graph *g, uint32_t site);
/* "app.rb:12 in new" into buf, or NULL (buf untouched) for no site. */
const char *ruby_site_text(const graph *g, uint32_t site, char *buf, size_t cap);

/* Nonzero if the first line of p[0..n) is a dump_all line (a ROOT or an object record). */
int ruby_sniff(const uint8_t *p, uint64_t n);

#endif
