// SPDX-License-Identifier: Apache-2.0
// Activity.java: the fields of android.app.Activity that android.rules reads.
package android.app;

public class Activity {
    public boolean mDestroyed;
}
