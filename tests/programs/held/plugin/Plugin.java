// SPDX-License-Identifier: Apache-2.0
// Plugin.java: the class HeldShapes' loader mode loads from its own folder (default package),
// holding 4 MB in a static so the loader it pins is worth finding.
public class Plugin {
    static byte[][] blob = new byte[40][];
    static {
        for (int i = 0; i < 40; i++)
            blob[i] = new byte[100_000];
    }
}
