// SPDX-License-Identifier: Apache-2.0
// DoubleClose: opens args[0] streams on a file, closes each, then closes each again in a
// second pass (a request path and its cleanup both closing), and keeps them all in a static
// list (the leak). Stays args[1] ms. Each close() of a JDK stream reaches the agent's hook:
// an object closed twice must count once toward the threshold.
package agent;

import java.io.File;
import java.io.FileInputStream;
import java.util.ArrayList;
import java.util.List;

public class DoubleClose {
    static final List<FileInputStream> KEPT = new ArrayList<>();

    public static void main(String[] args) throws Exception {
        int n = Integer.parseInt(args[0]);
        File f = File.createTempFile("doubleclose", ".txt");
        f.deleteOnExit();
        for (int i = 0; i < n; i++)
            KEPT.add(new FileInputStream(f));
        for (FileInputStream in : KEPT)
            in.close();
        Thread.sleep(50);
        for (FileInputStream in : KEPT)
            in.close();
        Thread.sleep(Long.parseLong(args[1]));
        System.out.println("kept " + KEPT.size());
    }
}
