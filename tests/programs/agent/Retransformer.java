// SPDX-License-Identifier: Apache-2.0
// Retransformer: a java.lang.instrument agent that only keeps its Instrumentation, so that
// StampLeaks can retransform its classes as a profiler or an APM agent would (no transformer:
// the classes' bytes go through the other agents' load hooks again).
// Manifest: Premain-Class: agent.Retransformer, Can-Retransform-Classes: true
package agent;

import java.lang.instrument.Instrumentation;

public class Retransformer {
    public static volatile Instrumentation inst;

    public static void premain(String args, Instrumentation i) {
        inst = i;
    }
}
