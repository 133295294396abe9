/* SPDX-License-Identifier: Apache-2.0 */
/* fmt.h: numbers, ids and names as every text rendering prints them (report layer), prefix
 * rep_fmt_. One convention for sizes in every verb's text: SI units as LeakCanary prints them
 * (1 kB = 1000 B, rep_human_bytes), exact byte counts with thousands separators, and the word
 * "bytes" after an exact count; tables print exact counts. The rep_fmt_* string functions
 * write into buf (REP_FMT_MAX bytes) and return it, so several fit in one printf. The CLI
 * reaches the same functions as cli_fmt_* (cli/cli.h). */
#ifndef LR_REPORT_FMT_H
#define LR_REPORT_FMT_H

#include "graph/graph.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define REP_FMT_MAX 64

/* 1234567 -> "1,234,567" (base/numfmt.h's grouping, the one every verb uses). */
const char *rep_fmt_count(char *buf, uint64_t n);
/* rep_fmt_count into a buffer of its own that lives to the end of the enclosing block (a
 * compound literal), for a count printed once: fprintf(out, "%s rows", REP_FMT_COUNT(n)).
 * n must not be negative. */
#define REP_FMT_COUNT(n) rep_fmt_count((char[REP_FMT_MAX]){0}, (uint64_t)(n))
/* Bytes for people: below 1 kB "512 B", else one decimal with SI units: "1.2 kB",
 * "3.4 MB", "5.6 GB" (1 kB = 1000 B). */
const char *rep_fmt_human(char *buf, uint64_t bytes);
/* "1,234,567 bytes (1.2 MB)" as info/show print sizes; just "512 bytes" below 1 kB. */
const char *rep_fmt_bytes(char *buf, uint64_t bytes);
/* part of whole as "12.3%" ("-" when whole is 0). */
const char *rep_fmt_pct(char *buf, uint64_t part, uint64_t whole);
/* A DevTools distance as DevTools shows it: the number, or U+2212 (minus sign) for objects
 * unreachable or reached only through the synthetic root (distance >= 100000000). */
const char *rep_fmt_distance(char *buf, int32_t distance);
/* An object id as users type it back to `show`: "0x7f00ab" for HPROF (id_size != 0),
 * "@1234" for V8-like graphs whose ids are node numbers. */
const char *rep_fmt_id(char *buf, const graph *g, uint64_t id);
/* The runtime a dump comes from, for sentences whose wording depends on it: JVM and Android
 * dumps (HPROF), JavaScript heaps (V8 snapshots of Node, Chrome, Bun, ArkTS), and the rest
 * (Dart, Ruby, native scans, graphs built through the API), which get neutral wording. */
enum rep_runtime { REP_RT_JAVA, REP_RT_JS, REP_RT_OTHER };
enum rep_runtime rep_fmt_runtime(const graph *g);
/* The name a synthetic node is shown under, as DevTools lists it: "(root)" for V8's
 * synthetic root (its name is empty), else the node's own name ("(GC roots)", "(Stack
 * roots)", "Node / Environment"), where every such node's class is "(synthetic)". NULL for
 * any other node, or a synthetic one without a name; the string lives with the graph. */
const char *rep_fmt_synthetic_name(const graph *g, node_ix x);
/* Writes s for a terminal: printable ASCII and valid UTF-8 as is; control characters (C0,
 * DEL, C1) and bytes of invalid UTF-8 as \n, \t, \r or \xNN per byte. At most max_bytes of s
 * are shown (a character cut there is left out), then "..." is added. */
void rep_fmt_text(FILE *out, const char *s, size_t len, size_t max_bytes);
/* The bytes of s (len bytes) that fit in max without cutting a UTF-8 sequence: len when it
 * fits, else max less a sequence cut there. */
size_t rep_fmt_utf8_prefix(const char *s, size_t len, size_t max);
/* The longest form rep_fmt_text gives one character: a bidirectional override, three bytes
 * as \xNN each. */
#define REP_FMT_CHAR_MAX 12
/* rep_fmt_text into buf (cap bytes, NUL-terminated) instead of a FILE: the same bytes, whole
 * when cap >= 4 x min(len, max_bytes) + 4 (an escape is 4 bytes per byte of s at most), else
 * cut at a character. Returns the bytes written, the NUL left out. */
size_t rep_fmt_text_buf(char *buf, size_t cap, const char *s, size_t len, size_t max_bytes);
/* s as rep_fmt_text shows it, for printf arguments: s itself when nothing in it needs an
 * escape (so clean names print whole, whatever their length), else its escaped form written
 * to buf (cap bytes, cut short as rep_fmt_text_buf cuts). */
const char *rep_fmt_term(char *buf, size_t cap, const char *s);
/* A name from a dump (class, field, frame, description) whole, escaped as rep_fmt_text does;
 * NULL writes nothing. */
void rep_fmt_name(FILE *out, const char *s);
/* Writes a name as one CSV field (quoted when it holds , " or a line break). */
void rep_fmt_csv(FILE *out, const char *s);
/* "<what>: 1.2 ms" or "<what>: 1.23 s" on its own line, unless no_timing (byte-stable
 * output has no clock readings). */
void rep_fmt_timing(FILE *out, int no_timing, const char *what, double ms);

#endif
