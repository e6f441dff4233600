package org.fraudpipe.schemas.registry;

/**
 * A schema registry call failed. Carries the HTTP status and the Confluent {@code error_code} of
 * the registry's answer ({@link #NO_HTTP_STATUS} / {@link #NO_ERROR_CODE} when there was no answer,
 * or it had none). The message always says what failed, where, and what to do.
 *
 * <p>Subclasses name the cases callers handle differently: {@link SubjectNotFoundException}, {@link
 * SchemaNotFoundException}, {@link IncompatibleSchemaException}, {@link NotAvroSchemaException},
 * {@link SchemaRegistryUnavailableException}. Anything else (HTTP 5xx, authentication, an invalid
 * schema) is a plain {@code SchemaRegistryException}.
 */
public class SchemaRegistryException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** {@link #httpStatus()} when no HTTP answer was received. */
    public static final int NO_HTTP_STATUS = -1;

    /** {@link #errorCode()} when the answer carried no Confluent error code. */
    public static final int NO_ERROR_CODE = -1;

    /** Confluent error code: subject not found. */
    public static final int SUBJECT_NOT_FOUND = 40401;

    /** Confluent error code: version not found. */
    public static final int VERSION_NOT_FOUND = 40402;

    /** Confluent error code: schema not found. */
    public static final int SCHEMA_NOT_FOUND = 40403;

    /** Confluent error code (and HTTP status): schema incompatible with an earlier version. */
    public static final int INCOMPATIBLE_SCHEMA = 409;

    /** Confluent error code: the subject has no compatibility level of its own. */
    public static final int SUBJECT_LEVEL_NOT_CONFIGURED = 40408;

    /** Confluent error code: invalid schema. */
    public static final int INVALID_SCHEMA = 42201;

    /** Confluent error code: invalid compatibility level. */
    public static final int INVALID_COMPATIBILITY_LEVEL = 42203;

    private final int httpStatus;
    private final int errorCode;

    public SchemaRegistryException(String message, int httpStatus, int errorCode) {
        this(message, httpStatus, errorCode, null);
    }

    public SchemaRegistryException(String message, int httpStatus, int errorCode, Throwable cause) {
        super(message, cause);
        this.httpStatus = httpStatus;
        this.errorCode = errorCode;
    }

    /** The HTTP status of the registry's answer, or {@link #NO_HTTP_STATUS}. */
    public int httpStatus() {
        return httpStatus;
    }

    /** The Confluent {@code error_code} of the registry's answer, or {@link #NO_ERROR_CODE}. */
    public int errorCode() {
        return errorCode;
    }
}
