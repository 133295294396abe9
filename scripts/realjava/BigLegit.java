// SPDX-License-Identifier: Apache-2.0
// BigLegit.java: big legitimate retainers beside one leak: an H2 in-memory database of
// 20,000 rows and a Jackson ObjectMapper's caches (legitimate), and an unbounded Caffeine
// cache of 8,000 tokens that only grows (watch BigLegit$Token). Usage: BigLegit LIVE ALL
package leakray.realjava;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

public class BigLegit {
    public static final class Token {
        public final String user;
        public final byte[] secret = new byte[512];
        Token(String u) { user = u; }
    }
    public static final class Order { public int id = 1; public String item = "x"; public double price = 2.5; }
    public static final class Customer { public String name = "n"; public List<Order> orders = new ArrayList<>(); }

    static final Cache<String, Token> TOKENS = Caffeine.newBuilder().build();
    static final ObjectMapper MAPPER = new ObjectMapper();
    static Connection DB;

    public static void main(String[] args) throws Exception {
        DB = DriverManager.getConnection("jdbc:h2:mem:shop;DB_CLOSE_DELAY=-1");
        try (Statement st = DB.createStatement()) {
            st.execute("CREATE TABLE item(id INT PRIMARY KEY, name VARCHAR(200), note VARCHAR(400))");
        }
        try (PreparedStatement ps = DB.prepareStatement("INSERT INTO item VALUES(?,?,?)")) {
            for (int i = 0; i < 20000; i++) {
                ps.setInt(1, i); ps.setString(2, "item-" + i); ps.setString(3, "note ".repeat(20) + i);
                ps.addBatch();
                if (i % 1000 == 999) ps.executeBatch();
            }
        }
        Customer c = new Customer();
        for (int i = 0; i < 50; i++) c.orders.add(new Order());
        for (int i = 0; i < 200; i++) MAPPER.writeValueAsString(c);
        MAPPER.writeValueAsString(new java.util.HashMap<>(java.util.Map.of("a", 1)));
        for (int i = 0; i < 8000; i++) TOKENS.put("tok-" + i, new Token("user" + i));
        for (int i = 0; i < 5; i++) { System.gc(); Thread.sleep(50); }
        Dump.write(args);
        DB.close();
    }
}
