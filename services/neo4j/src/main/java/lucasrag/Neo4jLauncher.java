package lucasrag;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.neo4j.configuration.GraphDatabaseSettings;
import org.neo4j.dbms.api.DatabaseManagementService;
import org.neo4j.dbms.api.DatabaseManagementServiceBuilder;

/**
 * Runs a Neo4j Community DBMS (embedded API, Bolt connector on) until SIGTERM/SIGINT.
 *
 * <p>Usage: {@code java ... lucasrag.Neo4jLauncher HOME_DIR CONFIG_FILE}. Every setting (Bolt address,
 * auth, memory) comes from CONFIG_FILE, written by {@code lucasrag.services.neo4j}; HOME_DIR holds
 * data/ and logs/. Prints {@code LUCASRAG_NEO4J_READY} once the default database is available,
 * {@code LUCASRAG_NEO4J_FAILED <reason>} (exit 1) when it cannot start, and
 * {@code LUCASRAG_NEO4J_STOPPED} after a clean shutdown.
 */
public final class Neo4jLauncher {
    private Neo4jLauncher() {}

    public static void main(String[] args) {
        if (args.length != 2) {
            System.err.println("usage: lucasrag.Neo4jLauncher HOME_DIR CONFIG_FILE");
            System.exit(2);
        }
        Path home = Path.of(args[0]).toAbsolutePath();
        Path config = Path.of(args[1]).toAbsolutePath();
        DatabaseManagementService dbms;
        try {
            Files.createDirectories(home);
            dbms = new DatabaseManagementServiceBuilder(home).loadPropertiesFromFile(config).build();
        } catch (Throwable e) {
            System.out.println("LUCASRAG_NEO4J_FAILED " + describe(e));
            e.printStackTrace(System.out);
            System.out.flush();
            System.exit(1);
            return;
        }

        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                dbms.shutdown();
                System.out.println("LUCASRAG_NEO4J_STOPPED");
            } catch (Throwable e) {
                System.out.println("LUCASRAG_NEO4J_STOP_FAILED " + describe(e));
            } finally {
                System.out.flush();
                stopped.countDown();
            }
        }, "lucasrag-neo4j-shutdown"));

        String name = GraphDatabaseSettings.DEFAULT_DATABASE_NAME;
        if (!dbms.database(name).isAvailable(TimeUnit.MINUTES.toMillis(5))) {
            System.out.println("LUCASRAG_NEO4J_FAILED database '" + name + "' did not become available");
            System.out.flush();
            System.exit(1);
        }
        System.out.println("LUCASRAG_NEO4J_READY");
        System.out.flush();
        try {
            stopped.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static String describe(Throwable e) {
        StringBuilder sb = new StringBuilder();
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (sb.length() > 0) {
                sb.append(" <- ");
            }
            sb.append(t.getClass().getSimpleName()).append(": ").append(t.getMessage());
            if (t.getCause() == t) {
                break;
            }
        }
        return sb.toString().replace('\n', ' ');
    }
}
