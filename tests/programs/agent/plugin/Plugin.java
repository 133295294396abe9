// SPDX-License-Identifier: Apache-2.0
// plugin.Plugin: loaded by AgentLeaks' classloader mode through its own URLClassLoader; the
// thread running it never stops, so after the loader is closed the thread still holds the
// loader (through this class) -- the shape of a web application that cannot be undeployed.
package plugin;

public class Plugin implements Runnable {
    static final byte[] CACHE = new byte[256 * 1024];

    @Override public void run() {
        while (true) {
            try {
                Thread.sleep(60_000);
            } catch (InterruptedException e) {
                return;
            }
        }
    }
}
