// SPDX-License-Identifier: Apache-2.0
// leakray.AppWatcher, bench-only shim: bench/agent.sh's section w puts it on the class path in
// place of leakray-watcher.jar so that AgentBench's watch mode runs unchanged, with
// tests/programs/bench/agent_weak.c loaded. Each watched object costs one native call (hold)
// and whatever that agent's option makes it do: the least any agent holding each watched
// object weakly through JNI pays per object. Not the product's class.
package leakray;

public final class AppWatcher {
    public static void expectWeaklyReachable(Object obj, String description) {
        if (obj != null) {
            hold(obj);
        }
    }

    /** Found in the agent library by the JVM's native lookup (Java_leakray_AppWatcher_hold). */
    private static native void hold(Object obj);
}
