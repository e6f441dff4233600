package org.fraudpipe.tools.advise;

import java.util.Locale;

/** How the advice writes numbers for people: durations, shares, bytes, counts. */
final class Human {

    private Human() {}

    /** {@code 0ms}, {@code 850ms}, {@code 1.2s}, {@code 12s}, {@code 2m03s}, {@code 2h03m}, ... */
    static String duration(Long millis) {
        if (millis == null) {
            return "-";
        }
        long ms = millis;
        if (ms < 0) {
            return "-" + duration(-ms);
        }
        if (ms < 1000) {
            return ms + "ms";
        }
        if (ms < 10_000) {
            return String.format(Locale.ROOT, "%.1fs", ms / 1000.0);
        }
        long s = ms / 1000;
        if (s < 60) {
            return s + "s";
        }
        if (s < 3600) {
            return String.format(Locale.ROOT, "%dm%02ds", s / 60, s % 60);
        }
        if (s < 86_400) {
            return String.format(Locale.ROOT, "%dh%02dm", s / 3600, (s % 3600) / 60);
        }
        return String.format(Locale.ROOT, "%dd%02dh", s / 86_400, (s % 86_400) / 3600);
    }

    /** {@code 0 %}, {@code 0.012 %}, {@code 1.5 %}, {@code 100 %}. */
    static String share(double share) {
        if (share == 0) {
            return "0 %";
        }
        double pct = share * 100;
        if (pct >= 10) {
            return String.format(Locale.ROOT, "%.1f %%", pct);
        }
        if (pct >= 1) {
            return String.format(Locale.ROOT, "%.2f %%", pct);
        }
        return String.format(Locale.ROOT, "%.3f %%", pct);
    }

    /** {@code 512 B}, {@code 12.3 kB}, {@code 4.6 MB}, {@code 1.2 GB} (powers of 1000). */
    static String bytes(long bytes) {
        if (bytes < 1000) {
            return bytes + " B";
        }
        String[] units = {"kB", "MB", "GB", "TB"};
        double v = bytes;
        int u = -1;
        while (v >= 1000 && u < units.length - 1) {
            v /= 1000;
            u++;
        }
        return String.format(Locale.ROOT, "%.1f %s", v, units[u]);
    }

    /** {@code 1,234,567}. */
    static String count(long n) {
        return String.format(Locale.ROOT, "%,d", n);
    }

    /** {@code 1.25}. */
    static String decimal(double d) {
        return String.format(Locale.ROOT, "%.2f", d);
    }
}
