/* SPDX-License-Identifier: Apache-2.0 */
/* classname.h: class names as they stay from run to run (graph layer), prefix classname_.
 * A leak's signature, a cycle's, a diff's row and a rule's subject must name the same class
 * in every dump of a program; the JVM and the browsers put into some names what they draw
 * anew in each run. */
#ifndef LR_GRAPH_CLASSNAME_H
#define LR_GRAPH_CLASSNAME_H

#include <stddef.h>

/* A class name without what the runtime numbers or places anew in each run: a lambda's class
 * ends at "$$Lambda" (JDK 8's "$$Lambda$3/1831932724", 17's "$$Lambda$14+0x0000000800c03000"
 * -- HPROF's spelling of "/0x" -- and 21's "$$Lambda/0x..." all become "Foo$$Lambda"),
 * another hidden class loses its "+0x<hex>" or "/0x<hex>" address ("LambdaForm$MH"), a
 * dynamic proxy its number ("jdk.proxy2.$Proxy12" -> "jdk.proxy.$Proxy"), a code
 * generator's class the name it drew, a page's global object its page's address, and a
 * number a browser draws after a name (" @96363") is dropped; array brackets stay. Any
 * other name is copied as it is, Android's desugared lambdas too ("-$$Lambda$Main$x8Kf",
 * "$$ExternalSyntheticLambda0": stable already). Writes at most cap bytes, NUL-terminated
 * (cut to fit). */
void classname_stable(const char *cn, char *out, size_t cap);

/* Whether cn, named as classname_stable names it, is stable: what `--watch`, `--class` and
 * a signature's `Foo$$Lambda` stand for (every lambda class of Foo, in any JDK's spelling;
 * every copy of a hidden class). */
int classname_stable_is(const char *cn, const char *stable);

#endif
