/* SPDX-License-Identifier: Apache-2.0 */
/* rewrite.h: class-file rewriting for watch rules (agents layer), prefix rw_. Before every
 * return instruction of the chosen methods it inserts `aload_0; bipush RULE; invokestatic
 * HOOK(Ljava/lang/Object;I)V; nop; nop` (8 bytes, so tableswitch/lookupswitch padding keeps
 * its alignment; `sipush RULE` and one nop for a RULE above 127), appends the hook's
 * constant-pool entries, and moves every code offset the class file holds: branches, switch
 * tables, the exception table, StackMapTable frames
 * (re-encoded; `uninitialized` offsets too), LineNumberTable and LocalVariable(Type)Table.
 * The result changes method bodies and the constant pool only, as JVMTI RetransformClasses
 * allows. The stamp variant (rw_rewrite_stamp, for a class being loaded, where a new field is
 * still allowed) adds a private transient synthetic int field to the class and inserts
 * `aload_0; sipush SLOT; invokestatic HOOK(I)I; putfield FIELD; nop; nop` (12 bytes): the
 * object records, in itself, when its watched method last returned. Anything it does not
 * understand (type annotations on code, an unknown opcode,
 * branches that would overflow, a method over 64 KB) leaves that method as it was. */
#ifndef LR_AGENT_REWRITE_H
#define LR_AGENT_REWRITE_H

#include <stddef.h>

typedef struct rw_target {
    const char *name; /* method name, "close" */
    const char *desc; /* method descriptor, "()V"; NULL: any */
    int rule;         /* 0..32767, passed to the hook (bipush up to 127, then sipush) */
} rw_target;

typedef struct rw_stamp {
    const char *field; /* name of the int field added to the class */
    int slot;          /* 0..32767, the hook's argument (which class returned) */
} rw_stamp;

/* Rewrites the class file in[0..n). Returns the number of methods rewritten (>= 1) with
 * *out (malloc, caller frees) and *out_len, 0 when no target matched or none could be
 * rewritten (*out untouched), or -1 when the class file is malformed. hook_class is the
 * internal name ("leakray/AppWatcher"), hook_name the static method's name. */
int rw_rewrite(const unsigned char *in, size_t n, const rw_target *targets, int n_targets,
               const char *hook_class, const char *hook_name, unsigned char **out,
               size_t *out_len);

/* As rw_rewrite, with the stamp hook and field (hook_name is a static method (I)I of
 * hook_class). Returns -1 as well for an interface, an annotation, a module or a class that
 * already has the field: only a class definition without them can take it. */
int rw_rewrite_stamp(const unsigned char *in, size_t n, const rw_target *targets,
                     int n_targets, const char *hook_class, const char *hook_name,
                     const rw_stamp *stamp, unsigned char **out, size_t *out_len);

#endif
