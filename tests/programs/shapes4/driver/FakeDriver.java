// SPDX-License-Identifier: Apache-2.0
// FakeDriver.java: a driver class FourShapes loads from its own folder (default package) with a
// URLClassLoader of its own, then registers with its static registry, as a JDBC driver
// registers with java.sql.DriverManager. It keeps 2 MB in a static, so the loader it pins
// (with every class it defined) is worth finding.
public class FakeDriver implements Runnable {
    static byte[][] cache = new byte[20][];
    static {
        for (int i = 0; i < 20; i++)
            cache[i] = new byte[100_000];
    }

    public void run() {
    }
}
