package lucasrag;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.neo4j.configuration.Config;
import org.neo4j.configuration.GraphDatabaseInternalSettings;
import org.neo4j.configuration.GraphDatabaseSettings;
import org.neo4j.dbms.api.DatabaseManagementService;
import org.neo4j.dbms.api.DatabaseManagementServiceBuilder;
import org.neo4j.io.fs.DefaultFileSystemAbstraction;
import org.neo4j.kernel.impl.security.User;
import org.neo4j.logging.NullLogProvider;
import org.neo4j.memory.EmptyMemoryTracker;
import org.neo4j.server.security.auth.CommunitySecurityModule;
import org.neo4j.server.security.auth.FileUserRepository;
import org.neo4j.server.security.auth.LegacyCredential;

/**
 * Runs a Neo4j Community DBMS (embedded API, Bolt connector on) until SIGTERM/SIGINT.
 *
 * <p>Usage: {@code java ... lucasrag.Neo4jLauncher HOME_DIR CONFIG_FILE [PASSWORD_FILE]}. Every setting
 * (Bolt address, auth, memory) comes from CONFIG_FILE, written by {@code lucasrag_harness.services.neo4j};
 * HOME_DIR holds data/ and logs/. With PASSWORD_FILE, user {@code neo4j} gets that password: on a new
 * store through the initial-user file (what {@code neo4j-admin dbms set-initial-password} writes), so
 * Bolt never opens with the default password; on an existing store (e.g. one that ran with auth off,
 * or after the file changed) through the embedded API, before the ready line. Prints {@code LUCASRAG_NEO4J_READY} once the default database is available,
 * {@code LUCASRAG_NEO4J_FAILED <reason>} (exit 1) when it cannot start, and
 * {@code LUCASRAG_NEO4J_STOPPED} after a clean shutdown.
 */
public final class Neo4jLauncher {
    private Neo4jLauncher() {}

    public static void main(String[] args) {
        if (args.length != 2 && args.length != 3) {
            System.err.println("usage: lucasrag.Neo4jLauncher HOME_DIR CONFIG_FILE [PASSWORD_FILE]");
            System.exit(2);
        }
        Path home = Path.of(args[0]).toAbsolutePath();
        Path config = Path.of(args[1]).toAbsolutePath();
        String password = null;
        DatabaseManagementService dbms;
        try {
            Files.createDirectories(home);
            if (args.length == 3) {
                password = Files.readString(Path.of(args[2]), StandardCharsets.UTF_8).strip();
                if (password.isEmpty()) {
                    throw new IllegalArgumentException("password file " + args[2] + " is empty");
                }
                writeInitialUser(home, config, password);
            }
            dbms = new DatabaseManagementServiceBuilder(home).loadPropertiesFromFile(config).build();
            if (password != null) {
                setPassword(dbms, password);
            }
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

    /** A new store (no system database yet): the initial user file, read once when the system database is created. */
    private static void writeInitialUser(Path home, Path config, String password) throws Exception {
        Config cfg = Config.newBuilder()
                .fromFile(config)
                .set(GraphDatabaseSettings.neo4j_home, home)
                .build();
        if (Files.exists(cfg.get(GraphDatabaseInternalSettings.databases_root_path).resolve("system"))) {
            return;
        }
        Path file = CommunitySecurityModule.getInitialUserRepositoryFile(cfg);
        Files.createDirectories(file.getParent());
        Files.deleteIfExists(file);
        try (DefaultFileSystemAbstraction fs = new DefaultFileSystemAbstraction()) {
            FileUserRepository users =
                    new FileUserRepository(fs, file, NullLogProvider.getInstance(), EmptyMemoryTracker.INSTANCE);
            users.start();
            users.create(new User("neo4j", null, LegacyCredential.forPassword(password), false, false));
            users.shutdown();
        }
    }

    /** An existing store: make the stored password the one in the file (a no-op when it already is). */
    private static void setPassword(DatabaseManagementService dbms, String password) {
        try {
            dbms.database(GraphDatabaseSettings.SYSTEM_DATABASE_NAME)
                    .executeTransactionally(
                            "ALTER USER neo4j SET PASSWORD $password CHANGE NOT REQUIRED", Map.of("password", password));
        } catch (RuntimeException e) {
            if (!String.valueOf(describe(e)).contains("Old password and new password cannot be the same")) {
                throw e;
            }
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
