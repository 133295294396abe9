// SPDX-License-Identifier: Apache-2.0
// EdgeShapes.java: watched objects at the edges of what a leak trace shows, each watched by a
// leakcanary.KeyedWeakReference (tests/programs/leaks/KeyedWeakReference.java, compiled with
// it):
//  - nested: a watched screen held by another watched screen (in a static): one trace, the
//    inner one is reached through the outer;
//  - watched-class: a class object itself is watched (a class is never leaking: the two
//    reasons conflict);
//  - watched-loader: a class loader reachable from a static is watched (the same conflict);
//  - watched-thread: a started thread, parked for ever, is watched (it is its own GC root);
//  - shadowed: a screen held by a field whose name a subclass declares again;
//  - watched-array: an Object[] in a static is watched (an array as the leaking object);
//  - proxy: a java.lang.reflect.Proxy in a static keeps its handler and the handler a screen.
// The program dumps its heap with HotSpotDiagnosticMXBean.dumpHeap(path, true).
// Usage: java com.example.edge.EdgeShapes OUT.hprof
package com.example.edge;

import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.ManagementFactory;
import java.lang.ref.ReferenceQueue;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;
import leakcanary.KeyedWeakReference;

class Screen {
    final String name;
    final byte[] pixels;
    Screen child;

    Screen(String name, int size) {
        this.name = name;
        this.pixels = new byte[size];
    }
}

class Plugin {
    static final List<Object> LOADED = new ArrayList<>();
}

class BaseHolder {
    Object slot;
}

class ShadowHolder extends BaseHolder {
    Object slot; // hides BaseHolder.slot
}

interface Greeter {
    void greet();
}

class ScreenHandler implements InvocationHandler {
    final Screen screen;

    ScreenHandler(Screen screen) {
        this.screen = screen;
    }

    public Object invoke(Object proxy, Method m, Object[] args) {
        return null;
    }
}

class Parker extends Thread {
    Parker() {
        super("edge-parker");
        setDaemon(true);
    }

    @Override
    public void run() {
        for (;;)
            LockSupport.park();
    }
}

public class EdgeShapes {
    static final ReferenceQueue<Object> QUEUE = new ReferenceQueue<>();
    static final List<KeyedWeakReference> WATCHED = new ArrayList<>();
    static Screen outer;
    static Object[] slots;
    static ShadowHolder shadow;
    static Greeter greeter;
    static int count;

    static <T> T watch(T o, String name) {
        count++;
        KeyedWeakReference ref = new KeyedWeakReference(o, "edge-" + count,
                name + " closed", 1000L * count, QUEUE);
        ref.retainedUptimeMillis = 6000L + count;
        WATCHED.add(ref);
        return o;
    }

    // waits (up to 5 s) until the named threads are parked, so their frames, and what their
    // locals and parkBlocker hold, are the same in every dump
    static void settle(String... names) throws InterruptedException {
        for (int i = 0; i < 500; i++) {
            boolean parked = true;
            for (Thread t : Thread.getAllStackTraces().keySet())
                for (String n : names)
                    if (t.getName().startsWith(n) && t.getState() != Thread.State.WAITING
                            && t.getState() != Thread.State.TIMED_WAITING)
                        parked = false;
            if (parked)
                return;
            Thread.sleep(10);
        }
    }

    public static void main(String[] args) throws Exception {
        outer = watch(new Screen("nested-outer", 21_000), "nested-outer");
        outer.child = watch(new Screen("nested-inner", 22_000), "nested-inner");

        watch(Plugin.class, "watched-class");
        URLClassLoader loader = new URLClassLoader(new URL[0], EdgeShapes.class.getClassLoader());
        Plugin.LOADED.add(watch(loader, "watched-loader"));

        Parker parker = new Parker();
        parker.start();
        watch(parker, "watched-thread");

        shadow = new ShadowHolder();
        ((BaseHolder) shadow).slot = watch(new Screen("shadowed", 23_000), "shadowed");
        shadow.slot = "sub";

        slots = watch(new Object[] {new Screen("in-array", 100)}, "watched-array");

        greeter = (Greeter) Proxy.newProxyInstance(EdgeShapes.class.getClassLoader(),
                new Class<?>[] {Greeter.class},
                new ScreenHandler(watch(new Screen("proxy", 24_000), "proxy")));

        settle("edge-parker");
        KeyedWeakReference.heapDumpUptimeMillis = 30000L;
        ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class).dumpHeap(args[0], true);
    }
}
