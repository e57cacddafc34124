// A small program for the profile tests: for the milliseconds given, it spends its time in Json
// (encoding) and in Db (a query that also encodes its row), in the proportion given, so that a
// recording of it has known layers. Run with the source launcher: java Work.java MS JSON_PERCENT
import java.util.ArrayList;
import java.util.List;

public class Work {
    public static void main(String[] args) {
        long end = System.currentTimeMillis() + Long.parseLong(args[0]);
        int jsonPercent = Integer.parseInt(args[1]);
        long sum = 0;
        int round = 0;
        while (System.currentTimeMillis() < end) {
            sum += (round++ % 100) < jsonPercent ? Json.encode(round) : Db.query(round);
        }
        System.out.println(sum);
    }
}

class Json {
    static List<String> kept = new ArrayList<>();

    static long encode(int n) {
        StringBuilder b = new StringBuilder();
        for (int k = 0; k < 200; k++) {
            b.append("{\"k\":").append(n * k).append('}');
        }
        String s = b.toString();
        kept.add(s);  // allocations that live a little
        if (kept.size() > 100) {
            kept.clear();
        }
        return s.length();
    }
}

class Db {
    static long query(int n) {
        return Util.spin(n) + (n % 50 == 0 ? Json.encode(n) : 0);
    }
}

class Util {
    static long spin(int n) {
        long h = n;
        for (int k = 0; k < 20000; k++) {
            h = h * 31 + (k ^ (h >>> 7));
        }
        return h & 1;
    }
}
