// SPDX-License-Identifier: Apache-2.0
// SharkPeer: a command-line front end to Square's Shark heap analyzer (the library LeakCanary
// runs), used only as a side-by-side peer for parity checks and benchmarks; leakray never links
// or ships it. Shark's own shark-cli is not published to Maven Central, so this calls the same
// library entry points its `analyze` and `strip-hprof` commands use, with the same defaults:
// Android leaking-object filters (KeyedWeakReference + destroyed Android objects), Android
// reference matchers and object inspectors, Android metadata, retained sizes computed.
//   --hprof FILE [--obfuscation-mapping MAP] [--platform android|jvm|auto] [--watch CLASS]...
//       analyze [--json]
//   --hprof FILE strip-hprof [-o OUT]      (default OUT: FILE with -stripped.hprof suffix)
// shark-cli always uses the Android defaults, which throw on a dump without android.os.Build;
// --platform jvm (chosen by auto for such dumps) uses the JDK subset Shark documents for plain
// JVMs: reference/finalizer/main-thread matchers, jdk inspectors and KeyedWeakReference filter.
// --watch CLASS (JVM platform) adds a filter taking every instance of CLASS (subclasses
// included) as leaking, what `leakray analyze --watch CLASS` traces.
// --json prints one object per leak trace (class, reference, status, reason, suspect flags,
// signature) so scripts compare structure instead of parsing the text report.
import java.io.File;
import java.io.FileInputStream;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import shark.AndroidMetadataExtractor;
import shark.AndroidObjectInspectors;
import shark.AndroidReferenceMatchers;
import shark.FilteringLeakingObjectFinder;
import shark.HeapAnalysis;
import shark.HeapAnalysisSuccess;
import shark.HeapAnalyzer;
import shark.HeapObject;
import shark.HprofPrimitiveArrayStripper;
import shark.CloseableHeapGraph;
import shark.HprofHeapGraph;
import shark.HprofIndex;
import shark.Leak;
import shark.LeakTrace;
import shark.LeakTraceObject;
import shark.LeakTraceReference;
import shark.LibraryLeak;
import shark.MetadataExtractor;
import shark.ObjectInspectors;
import shark.ProguardMapping;
import shark.ProguardMappingReader;

public final class SharkPeer {
    private static void usage() {
        System.err.println("usage: SharkPeer --hprof FILE [--obfuscation-mapping MAP] "
                + "[--watch CLASS]... analyze [--json] | strip-hprof [-o OUT]");
        System.exit(2);
    }

    public static void main(String[] args) throws Exception {
        File hprof = null;
        File mapping = null;
        String cmd = null;
        boolean json = false;
        String platform = "auto";
        File out = null;
        List<String> watch = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if ((a.equals("--hprof") || a.equals("-h")) && i + 1 < args.length) {
                hprof = new File(args[++i]);
            } else if ((a.equals("--obfuscation-mapping") || a.equals("-m")) && i + 1 < args.length) {
                mapping = new File(args[++i]);
            } else if (a.equals("--platform") && i + 1 < args.length) {
                platform = args[++i];
            } else if (a.equals("--watch") && i + 1 < args.length) {
                watch.add(args[++i]);
            } else if (a.equals("--json")) {
                json = true;
            } else if (a.equals("-o") && i + 1 < args.length) {
                out = new File(args[++i]);
            } else if (cmd == null && (a.equals("analyze") || a.equals("strip-hprof"))) {
                cmd = a;
            } else {
                usage();
            }
        }
        if (hprof == null || cmd == null) usage();
        if (!hprof.isFile()) {
            System.err.println("SharkPeer: no such file " + hprof);
            System.exit(2);
        }
        if (cmd.equals("strip-hprof")) {
            if (out == null) {
                String p = hprof.getPath();
                out = new File(p.replaceFirst("\\.hprof$", "") + "-stripped.hprof");
            }
            new HprofPrimitiveArrayStripper().stripPrimitiveArrays(hprof, out);
            System.out.println("Created hprof with stripped primitive arrays to " + out);
            return;
        }
        ProguardMapping pm = null;
        if (mapping != null) {
            try (InputStream in = new FileInputStream(mapping)) {
                pm = new ProguardMappingReader(in).readProguardMapping();
            }
        }
        HeapAnalyzer analyzer = new HeapAnalyzer(step -> { });
        HeapAnalysis analysis;
        try (CloseableHeapGraph graph = HprofHeapGraph.Companion.openHeapGraph(
                hprof, pm, HprofIndex.Companion.defaultIndexedGcRootTags())) {
            boolean android = platform.equals("android")
                    || (platform.equals("auto") && graph.findClassByName("android.os.Build") != null);
            if (!android && !platform.equals("jvm") && !platform.equals("auto")) usage();
            if (android) {
                analysis = analyzer.analyze(hprof, graph,
                        new FilteringLeakingObjectFinder(
                                AndroidObjectInspectors.Companion.getAppLeakingObjectFilters()),
                        AndroidReferenceMatchers.Companion.getAppDefaults(), true,
                        AndroidObjectInspectors.Companion.getAppDefaults(),
                        AndroidMetadataExtractor.INSTANCE);
            } else {
                List<FilteringLeakingObjectFinder.LeakingObjectFilter> filters =
                        new ArrayList<>(ObjectInspectors.Companion.getJdkLeakingObjectFilters());
                for (String w : watch) {
                    filters.add(o -> o instanceof HeapObject.HeapInstance
                            && ((HeapObject.HeapInstance) o).instanceOf(w));
                }
                analysis = analyzer.analyze(hprof, graph,
                        new FilteringLeakingObjectFinder(filters),
                        AndroidReferenceMatchers.Companion.buildKnownReferences(EnumSet.of(
                                AndroidReferenceMatchers.REFERENCES,
                                AndroidReferenceMatchers.FINALIZER_WATCHDOG_DAEMON,
                                AndroidReferenceMatchers.MAIN)), true,
                        ObjectInspectors.Companion.getJdkDefaults(),
                        MetadataExtractor.Companion.getNO_OP());
            }
        }
        if (!json) {
            System.out.println(analysis);
            return;
        }
        if (!(analysis instanceof HeapAnalysisSuccess)) {
            System.out.println(analysis);
            System.exit(1);
        }
        HeapAnalysisSuccess ok = (HeapAnalysisSuccess) analysis;
        StringBuilder sb = new StringBuilder("{\"leaks\": [");
        List<Leak> leaks = new ArrayList<>();
        leaks.addAll(ok.getApplicationLeaks());
        leaks.addAll(ok.getLibraryLeaks());
        boolean firstLeak = true;
        for (Leak leak : leaks) {
            if (!firstLeak) sb.append(",");
            firstLeak = false;
            sb.append("\n {\"kind\": ").append(q(leak instanceof LibraryLeak ? "library" : "application"));
            sb.append(", \"signature\": ").append(q(leak.getSignature()));
            sb.append(", \"short_description\": ").append(q(leak.getShortDescription()));
            if (leak instanceof LibraryLeak) {
                sb.append(", \"pattern\": ").append(q(((LibraryLeak) leak).getPattern().toString()));
                sb.append(", \"description\": ").append(q(((LibraryLeak) leak).getDescription()));
            }
            sb.append(", \"total_retained_bytes\": ").append(leak.getTotalRetainedHeapByteSize());
            sb.append(", \"traces\": [");
            boolean firstTrace = true;
            for (LeakTrace t : leak.getLeakTraces()) {
                if (!firstTrace) sb.append(",");
                firstTrace = false;
                sb.append("\n  {\"gc_root\": ").append(q(t.getGcRootType().getDescription()));
                sb.append(", \"signature\": ").append(q(t.getSignature()));
                sb.append(", \"retained_bytes\": ").append(t.getRetainedHeapByteSize());
                sb.append(", \"retained_objects\": ").append(t.getRetainedObjectCount());
                sb.append(", \"elements\": [");
                List<LeakTraceReference> path = t.getReferencePath();
                for (int i = 0; i < path.size(); i++) {
                    LeakTraceReference r = path.get(i);
                    obj(sb, r.getOriginObject());
                    sb.append(", \"reference\": {\"type\": ").append(q(r.getReferenceType().name()));
                    sb.append(", \"name\": ").append(q(r.getReferenceName()));
                    sb.append(", \"display\": ").append(q(r.getReferenceDisplayName()));
                    sb.append(", \"generic\": ").append(q(r.getReferenceGenericName()));
                    sb.append(", \"owning_class\": ").append(q(r.getOwningClassName()));
                    sb.append(", \"suspect\": ").append(t.referencePathElementIsSuspect(i));
                    sb.append("}},");
                }
                obj(sb, t.getLeakingObject());
                sb.append("}]}");
            }
            sb.append("]}");
        }
        sb.append("\n], \"unreachable\": ").append(ok.getUnreachableObjects().size());
        sb.append(", \"metadata\": {");
        boolean firstMeta = true;
        for (java.util.Map.Entry<String, String> e : ok.getMetadata().entrySet()) {
            if (!firstMeta) sb.append(", ");
            firstMeta = false;
            sb.append(q(e.getKey())).append(": ").append(q(e.getValue()));
        }
        sb.append("}}");
        System.out.println(sb);
    }

    private static void obj(StringBuilder sb, LeakTraceObject o) {
        sb.append("\n   {\"class\": ").append(q(o.getClassName()));
        sb.append(", \"type\": ").append(q(o.getType().name().toLowerCase()));
        sb.append(", \"leaking\": ").append(q(o.getLeakingStatus().name()));
        sb.append(", \"reason\": ").append(q(o.getLeakingStatusReason()));
        sb.append(", \"retained_bytes\": ").append(o.getRetainedHeapByteSize());
        sb.append(", \"labels\": [");
        boolean first = true;
        for (String l : o.getLabels()) {
            if (!first) sb.append(", ");
            first = false;
            sb.append(q(l));
        }
        sb.append("]");
    }

    private static String q(String s) {
        if (s == null) return "null";
        StringBuilder b = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            switch (c) {
                case '"': b.append("\\\""); break;
                case '\\': b.append("\\\\"); break;
                case '\n': b.append("\\n"); break;
                case '\t': b.append("\\t"); break;
                case '\r': b.append("\\r"); break;
                default:
                    if (c < 0x20) b.append(String.format("\\u%04x", (int) c));
                    else b.append(c);
            }
        }
        return b.append('"').toString();
    }
}
