// SPDX-License-Identifier: Apache-2.0
// web.Web: a web application's code, loaded by ChildFirst's loader with its own copy of
// leakray-watcher.jar (as WEB-INF/lib): it watches an object it keeps.
package web;

import java.util.ArrayList;
import java.util.List;
import leakray.AppWatcher;

public class Web implements Runnable {
    static final List<Object> KEPT = new ArrayList<>();

    @Override public void run() {
        Object o = new Object();
        KEPT.add(o);
        AppWatcher.expectWeaklyReachable(o, "a request that ended");
        System.out.println("installed=" + AppWatcher.isInstalled());
    }
}
