// SPDX-License-Identifier: Apache-2.0
// closeplug.Closing: a plugin class that is Closeable (so the agent's `Closeable#close` rule
// hooks it as it loads) and keeps a 1 MB static, loaded by Unload.java in a class loader of
// its own, once per plugin.
package closeplug;

import java.io.Closeable;

public class Closing implements Closeable {
    static final byte[] STATE = new byte[1 << 20];

    @Override public void close() {
        STATE[0] = 1;
    }
}
