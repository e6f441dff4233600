package org.fraudpipe.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

/** What a result is worth without: the machine, the JVM, the code version, the load. */
final class Machine {

    private Machine() {}

    /** The 1, 5 and 15 minute load averages ({@code /proc/loadavg}; empty elsewhere). */
    static double[] loadAverage() {
        try {
            String[] f =
                    Files.readString(Path.of("/proc/loadavg"), StandardCharsets.UTF_8)
                            .trim()
                            .split("\\s+");
            return new double[] {
                Double.parseDouble(f[0]), Double.parseDouble(f[1]), Double.parseDouble(f[2])
            };
        } catch (IOException | RuntimeException e) {
            return new double[0];
        }
    }

    static Map<String, Object> describe(Path home) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("date", Instant.now().toString());
        m.put("availableProcessors", Runtime.getRuntime().availableProcessors());
        m.put("cpuModel", firstValue(Path.of("/proc/cpuinfo"), "model name"));
        m.put("memTotal", firstValue(Path.of("/proc/meminfo"), "MemTotal"));
        m.put("os", System.getProperty("os.name") + " " + System.getProperty("os.version"));
        m.put(
                "java",
                System.getProperty("java.vm.name")
                        + " "
                        + System.getProperty("java.runtime.version"));
        m.put("gitCommit", git(home, "rev-parse", "HEAD"));
        m.put("gitDirty", !git(home, "status", "--porcelain", "--untracked-files=no").isEmpty());
        return m;
    }

    private static String firstValue(Path file, String key) {
        try {
            for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
                if (line.startsWith(key)) {
                    return line.substring(line.indexOf(':') + 1).trim();
                }
            }
        } catch (IOException e) {
            // not Linux
        }
        return null;
    }

    private static String git(Path home, String... args) {
        try {
            String[] cmd = new String[args.length + 1];
            cmd[0] = "git";
            System.arraycopy(args, 0, cmd, 1, args.length);
            Process p = new ProcessBuilder(cmd).directory(home.toFile()).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            p.waitFor();
            return out.trim();
        } catch (IOException e) {
            return "";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "";
        }
    }
}
