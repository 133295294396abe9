// SPDX-License-Identifier: Apache-2.0
// PlantedLeaks: the leaks the benchmark dump programs (BigDump, HugeDump) plant in their
// heaps, written once so both dumps hold the same ones. The lists the leaks hang from are the
// caller's statics, so the leaks stay rooted in the dump program's class (traces read
// "BigDump.LISTENERS", and that class retains them as before):
//   - listeners(list, n): a static listener list that only grows (PlantedLeaks$Listener ->
//     PlantedLeaks$Screen, n of each, 4 KiB bitmap and 8 view strings per screen),
//   - watched(...): n destroyed screens (64 KiB bitmaps) watched by
//     leakcanary.KeyedWeakReference after their onDestroy(), still strongly held by a static,
//   - parkedWorker(): a thread parked while a local of its frame holds 256 buffers of 8 KiB.
// Compiled with tests/programs/demo/KeyedWeakReference.java (scripts/gen-big-dump.sh,
// gen-huge-dump.sh).
import java.lang.ref.ReferenceQueue;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.locks.LockSupport;

final class PlantedLeaks {
    static final class Screen {
        String title;
        byte[] bitmap;
        boolean destroyed;
        List<Object> views = new ArrayList<>();
    }

    static final class Listener {
        final Screen owner;
        final int id;
        Listener(Screen owner, int id) { this.owner = owner; this.id = id; }
    }

    private PlantedLeaks() {}

    // Listeners registered by screens and never removed: n added to listeners.
    static void listeners(List<Listener> listeners, int n) {
        for (int i = 0; i < n; i++) {
            Screen sc = new Screen();
            sc.title = "Screen #" + i;
            sc.bitmap = new byte[4096];
            for (int v = 0; v < 8; v++) sc.views.add("view-" + i + "-" + v);
            sc.destroyed = true;
            listeners.add(new Listener(sc, i));
        }
    }

    // Destroyed screens watched after destruction (their references added to watched, queued
    // on queue), still strongly held: their list is added to hold and returned.
    static List<Screen> watched(List<Object> watched, List<Object> hold,
                                ReferenceQueue<Object> queue, int n) {
        List<Screen> retained = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            Screen sc = new Screen();
            sc.title = "Watched screen " + i;
            sc.bitmap = new byte[65536];
            sc.destroyed = true;
            retained.add(sc);
            leakcanary.KeyedWeakReference ref = new leakcanary.KeyedWeakReference(
                sc, "key-" + i, "PlantedLeaks$Screen received onDestroy()", 1000L + i, queue);
            ref.retainedUptimeMillis = 6000L + i;
            watched.add(ref);
        }
        leakcanary.KeyedWeakReference.heapDumpUptimeMillis = 20_000L;
        hold.add(retained);
        return retained;
    }

    // A worker thread parked while its frame holds buffers; returns once they are allocated.
    static void parkedWorker() throws InterruptedException {
        CountDownLatch ready = new CountDownLatch(1);
        Thread worker = new Thread(() -> {
            List<byte[]> buffers = new ArrayList<>();
            for (int i = 0; i < 256; i++) buffers.add(new byte[8192]);
            ready.countDown();
            while (true) {
                LockSupport.park();
                if (buffers.isEmpty()) break;
            }
        }, "bench-worker");
        worker.setDaemon(true);
        worker.start();
        ready.await();
    }
}
