// A JVM stand-in for the profiled steady test: the JDK's own HTTP server on HTTP_PORT whose /hello
// does some Java work per request (it builds a small JSON text) and logs a line through
// java.util.logging, so that a profile of it has samples in the HTTP server and in logging.
import com.sun.net.httpserver.HttpServer;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Executors;
import java.util.logging.Logger;
import java.util.logging.SimpleFormatter;
import java.util.logging.StreamHandler;

public class WorkServer {
    public static void main(String[] args) throws Exception {
        Logger log = Logger.getLogger("work");
        log.setUseParentHandlers(false);
        log.addHandler(new StreamHandler(OutputStream.nullOutputStream(), new SimpleFormatter()));
        int port = Integer.parseInt(System.getenv().getOrDefault("HTTP_PORT", "8080"));
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", port), 128);
        server.setExecutor(Executors.newFixedThreadPool(4));
        server.createContext("/hello", exchange -> {
            StringBuilder json = new StringBuilder("[");
            for (int k = 0; k < 3000; k++) {
                json.append("{\"id\":").append(k).append(",\"name\":\"fruit ").append(k * 31).append("\"},");
            }
            byte[] body = json.append("{}]").toString().getBytes(StandardCharsets.UTF_8);
            for (int k = 0; k < 20; k++) {
                log.info("served " + body.length + " bytes, line " + k);
            }
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        server.start();
        System.out.println("work server started in " + java.lang.management.ManagementFactory.getRuntimeMXBean().getUptime() + "ms");
    }
}
