// SPDX-License-Identifier: Apache-2.0
// KeepAliveClient: six requests at once to a local HTTP server through the JDK's own
// HttpURLConnection, each response read and its stream closed; the program keeps nothing.
// The JDK keeps the closed streams in its keep-alive cache (5 s) to reuse their connections,
// and its Keep-Alive-Timer thread once it ends: neither is a leak. Stays args[0] ms.
package agent;

import com.sun.net.httpserver.HttpServer;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.net.InetSocketAddress;
import java.net.URL;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

public class KeepAliveClient {
    public static void main(String[] args) throws Exception {
        final int n = 6;
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.setExecutor(Executors.newFixedThreadPool(n));
        CountDownLatch together = new CountDownLatch(n); /* six connections, not one reused */
        server.createContext("/", exchange -> {
            together.countDown();
            try {
                together.await(3, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            byte[] body = "ok".getBytes();
            exchange.sendResponseHeaders(200, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        });
        server.start();
        String base = "http://127.0.0.1:" + server.getAddress().getPort() + "/item/";
        ExecutorService clients = Executors.newFixedThreadPool(n);
        for (int i = 0; i < n; i++) {
            final String url = base + i;
            clients.submit(() -> {
                HttpURLConnection c = (HttpURLConnection) new URL(url).openConnection();
                try (InputStream in = c.getInputStream()) {
                    in.readAllBytes();
                }
                return null;
            });
        }
        clients.shutdown();
        clients.awaitTermination(20, TimeUnit.SECONDS);
        System.out.println("requests done");
        Thread.sleep(Long.parseLong(args[0]));
        server.stop(0);
        System.exit(0);
    }
}
