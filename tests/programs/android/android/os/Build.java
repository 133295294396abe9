// SPDX-License-Identifier: Apache-2.0
// Build.java: the class whose presence makes leakray read a dump with android.rules; the
// fields the rules read of it (VERSION.SDK_INT, MANUFACTURER) are not needed here.
package android.os;

public class Build {
    public static final String MANUFACTURER = "leakray";
}
