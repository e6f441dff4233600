package org.fraudpipe.job.config;

import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.regex.Pattern;

/**
 * Directory options that take either a Flink file system URI ({@code file:///...}, {@code
 * s3://...}, {@code hdfs://...}) or a local path: {@code --archive-dir} of the job, {@code
 * --archive} of a replay. One rule for both: a value starting with a scheme is a URI, used as given
 * (it must be hierarchical with an absolute path or an authority); anything else is a local path,
 * resolved against a base directory, and becomes a {@code file:} URI.
 */
public final class DirectoryUris {

    /** A value that starts with a URI scheme ({@code file:}, {@code s3:}, ...). */
    private static final Pattern HAS_SCHEME = Pattern.compile("[A-Za-z][A-Za-z0-9+.-]*:.*");

    private DirectoryUris() {}

    /** Whether {@code value} is written as a URI (has a scheme) rather than as a local path. */
    public static boolean hasScheme(String value) {
        return HAS_SCHEME.matcher(value).matches();
    }

    /**
     * The directory {@code value} names.
     *
     * @param option the option's flag, for messages
     * @param base what a relative local path is resolved against
     * @throws IllegalArgumentException starting with {@code option} if it names no directory
     */
    public static URI parse(String option, String value, Path base) {
        if (value.isEmpty()) {
            throw new IllegalArgumentException(
                    option + " must not be empty: give a directory or a file system URI");
        }
        if (hasScheme(value)) {
            URI uri;
            try {
                uri = new URI(value);
            } catch (URISyntaxException e) {
                throw new IllegalArgumentException(
                        option + " '" + value + "' is not a URI: " + e.getMessage(), e);
            }
            if (uri.isOpaque()
                    || (uri.getAuthority() == null
                            && (uri.getPath() == null || !uri.getPath().startsWith("/")))) {
                throw new IllegalArgumentException(
                        option
                                + " '"
                                + value
                                + "' is not a directory URI: write scheme://authority/path, e.g."
                                + " file:///var/fraudpipe/archive or s3://bucket/fraudpipe/archive");
            }
            return uri;
        }
        try {
            Path local = base.resolve(value).toAbsolutePath().normalize();
            return new URI("file", "", local.toString(), null, null);
        } catch (InvalidPathException | URISyntaxException e) {
            throw new IllegalArgumentException(
                    option + " '" + value + "' is not a path: " + e.getMessage(), e);
        }
    }
}
