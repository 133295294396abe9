/* SPDX-License-Identifier: Apache-2.0 */
/* hprof_internal.h: HPROF reader internals shared inside the format layer, prefix hprof_.
 * Lets a second walker over the heap records (hprof_histo.c) reuse the reader's header and
 * top-level parsing, CLASS_DUMP validation, class building and size models instead of
 * copying them, so both produce the same classes, sizes and errors by construction. Not part
 * of any public surface; the implementations live at the end of hprof_read.c. */
#ifndef LR_FORMAT_HPROF_INTERNAL_H
#define LR_FORMAT_HPROF_INTERNAL_H

#include "format/hprof.h"

/* A CLASS_DUMP found by a walker: body offset (after the sub-tag), end, field counts. */
typedef struct hprof_cls_pos {
    uint64_t off, end;
    uint32_t n_statics, n_fields;
} hprof_cls_pos;

/* What hprof_model_load hands to the walker and what the walker returns. */
typedef struct hprof_walk {
    /* in */
    const uint8_t *d;
    uint64_t n;
    const char *name;  /* for messages */
    unsigned ids;      /* identifier size, 4 or 8 */
    int android;       /* 1.0.3: Shark size model */
    hprof_dump dump;   /* the chosen dump (length 0 when the file has none) */
    /* out: CLASS_DUMPs in file order (err_malloc'd, freed by hprof_model_load) */
    hprof_cls_pos *cls;
    uint32_t n_cls;
    uint64_t n_objects; /* instances and arrays, for the reader's 4G-node ceiling */
} hprof_walk;

typedef lr_status (*hprof_walk_fn)(void *ctx, hprof_walk *w, lr_error *err);

/* Sizes the reader would give each node. inst_size is err_malloc'd (free it). */
typedef struct hprof_model {
    int android;
    unsigned ids;
    uint32_t min_inst, oop;    /* VisualVM model (HotSpot); unused for Android */
    uint32_t class_obj_size;   /* VisualVM size of a class object */
    uint32_t *inst_size;       /* per class index: an instance's shallow size */
    class_ix prim_class[12];   /* the dump's own class of each primitive array type, or NONE */
} hprof_model;

/* Runs the reader's load up to its pass 1 (header, top-level index, dump choice by
 * dump_index as fmt_opts.dump_index), calls walk in place of pass 1, then builds the classes
 * into g (g->path names the input) and the size model, with the reader's errors. */
lr_status hprof_model_load(graph *g, const mfile *m, int dump_index, hprof_walk_fn walk,
                           void *ctx, hprof_model *out, lr_error *err);

/* The reader's CLASS_DUMP walk: validates the body at pos (after the sub-tag) within
 * [pos, end) and returns its end and field counts, or the reader's error. */
lr_status hprof_class_dump_skip(const uint8_t *d, uint64_t n, unsigned ids, const char *name,
                                uint64_t pos, uint64_t end, uint64_t *out_end,
                                uint32_t *n_statics, uint32_t *n_fields, lr_error *err);

#endif
