// SPDX-License-Identifier: Apache-2.0
// Recycle.java: what servers and libraries close and keep on purpose, under the agent's
// shipped rules: 8 Tomcat response buffers and 8 Jetty output streams closed and kept in
// pools, Logback's two console streams closed; and, as the control, 6 streams of the
// program's own closed and kept in a static list (a real leak). Runs for RUN_MS.
// Usage: java Recycle RUN_MS
import ch.qos.logback.core.joran.spi.ConsoleTarget;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.List;
import org.apache.catalina.connector.OutputBuffer;
import org.eclipse.jetty.server.HttpOutput;

public class Recycle {
    static class Leaked extends OutputStream {
        final byte[] buf = new byte[4096];

        @Override public void write(int b) { }
    }

    static final List<Object> POOL = new ArrayList<>();
    static final List<Object> KEPT = new ArrayList<>();

    public static void main(String[] args) throws Exception {
        for (int i = 0; i < 8; i++) {
            OutputBuffer b = new OutputBuffer();
            b.close();
            POOL.add(b);
            HttpOutput o = new HttpOutput();
            o.close();
            POOL.add(o);
        }
        ConsoleTarget.SystemOut.getStream().close();
        ConsoleTarget.SystemErr.getStream().close();
        for (int i = 0; i < 6; i++) {
            Leaked l = new Leaked();
            l.close();
            KEPT.add(l);
        }
        Thread.sleep(Long.parseLong(args[0]));
    }
}
