// A service from outside the project, for the bring-your-own-app test: the JDK's own HTTP server
// answering /hello, on the port given as the first argument or in HTTP_PORT.
import com.sun.net.httpserver.HttpServer;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Executors;

public class HelloServer {
    public static void main(String[] args) throws Exception {
        int port = Integer.parseInt(args.length > 0 ? args[0] : System.getenv().getOrDefault("HTTP_PORT", "8080"));
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", port), 128);
        server.setExecutor(Executors.newFixedThreadPool(4));
        server.createContext("/hello", exchange -> {
            byte[] body = "Hello from your own jar".getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("Content-Type", "text/plain");
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        server.start();
        System.out.println("hello server started in " + java.lang.management.ManagementFactory.getRuntimeMXBean().getUptime() + "ms");
    }
}
