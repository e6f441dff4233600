package org.fraudpipe.job.cli;

import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.UnmatchedArgumentException;

/**
 * What every {@code ./fraud} command line has in common, whichever module owns the command (the
 * job's, the parity check's and the savepoint tool's are also the entry points of their cluster
 * jars, the benchmark has a JVM of its own):
 *
 * <ul>
 *   <li><b>Usage errors</b> in two lines: what is wrong ({@code <command>: <message>}) and where
 *       the options are listed; exit code {@value #EXIT_USAGE}. Not the whole help, which buries
 *       the message. Picocli's own errors (unknown option, bad value, missing required option) and
 *       a command's own checks ({@link ParameterException} thrown from its {@code call()}) alike.
 *   <li><b>Refusals</b> in one line: a command that cannot do what it was asked (a broker's data
 *       directory of the other mode, a port in use, a broker that does not answer) throws an {@link
 *       IllegalStateException} or {@link IllegalArgumentException} whose message names the problem
 *       and the fix; that escaping {@code call()} is printed as {@code <command>: <message>}, exit
 *       code {@value #EXIT_USAGE}, without the stack trace that would bury it ({@value
 *       #TRACE_VARIABLE}{@code =1} prints it as well). Any other exception is a defect and keeps
 *       picocli's stack trace, exit code 1.
 *   <li><b>Footers</b> whose example lines are printed as they are written, never wrapped: an
 *       indented footer line is a command to copy, so a line break inside it would break the
 *       command. Prose lines (not indented) are wrapped at the usage width, at spaces only.
 * </ul>
 *
 * <p>Picocli asks the command line that {@code execute()} runs on for the usage error handler of
 * every subcommand: {@link #install} on the root is enough for the handler; footers are set on
 * every command of the tree.
 */
public final class CommandLines {

    /** The exit code of a usage error, for every command. */
    public static final int EXIT_USAGE = 2;

    /** Set to 1 in the environment, a refusal's stack trace is printed after its line. */
    public static final String TRACE_VARIABLE = "FRAUD_TRACE";

    /** The launcher's name, the root of every usage line under {@code ./fraud}. */
    public static final String ROOT = "./fraud";

    private CommandLines() {}

    /**
     * Installs the usage error handler and the footer renderer on {@code cl} and its subcommands.
     */
    public static CommandLine install(CommandLine cl) {
        cl.setParameterExceptionHandler(CommandLines::usageError);
        cl.setExecutionExceptionHandler(CommandLines::refusal);
        footers(cl);
        return cl;
    }

    private static void footers(CommandLine cl) {
        cl.getHelpSectionMap()
                .put(
                        CommandLine.Model.UsageMessageSpec.SECTION_KEY_FOOTER,
                        help -> footer(help.commandSpec()));
        for (CommandLine sub : cl.getSubcommands().values()) {
            footers(sub);
        }
    }

    /**
     * A usage error of any command, in two lines: what is wrong, and where the options are listed.
     * Exit code {@value #EXIT_USAGE}.
     */
    public static int usageError(ParameterException e, String[] args) {
        CommandLine cmd = e.getCommandLine();
        cmd.getErr().println(message(e));
        cmd.getErr().println("(" + qualifiedName(cmd) + " --help lists the options)");
        cmd.getErr().flush();
        return EXIT_USAGE;
    }

    /**
     * A refusal escaping a command's {@code call()}: one line, exit code {@value #EXIT_USAGE}.
     * Anything else is rethrown, for picocli's stack trace and exit code 1.
     */
    static int refusal(Exception e, CommandLine cmd, CommandLine.ParseResult parsed)
            throws Exception {
        if (!(e instanceof IllegalStateException || e instanceof IllegalArgumentException)) {
            throw e;
        }
        String text = e.getMessage() == null ? e.toString() : e.getMessage().strip();
        cmd.getErr().println(commandName(cmd) + ": " + text);
        if ("1".equals(System.getenv(TRACE_VARIABLE))) {
            e.printStackTrace(cmd.getErr());
        }
        cmd.getErr().flush();
        return EXIT_USAGE;
    }

    /** The first line of a usage error: {@code <command>: <what is wrong>}. */
    static String message(ParameterException e) {
        String text = e.getMessage() == null ? "bad usage" : e.getMessage().strip();
        // Picocli's argument group messages start with "Error: ", its others do not.
        if (text.startsWith("Error: ")) {
            text = text.substring("Error: ".length());
        }
        if (e instanceof UnmatchedArgumentException u && !u.getSuggestions().isEmpty()) {
            text += " (did you mean " + alternatives(u.getSuggestions()) + "?)";
        }
        return commandName(e.getCommandLine()) + ": " + text;
    }

    /** The command's name below the launcher's, e.g. {@code kafka start}. */
    static String commandName(CommandLine cmd) {
        String name = qualifiedName(cmd);
        return name.startsWith(ROOT + " ") ? name.substring(ROOT.length() + 1) : name;
    }

    private static String qualifiedName(CommandLine cmd) {
        return cmd.getCommandSpec().qualifiedName(" ");
    }

    /**
     * One usage error for every required option that is missing, so that the user learns them all
     * at once: {@code missing PARTS[0], PARTS[1] and PARTS[2]}.
     */
    public static ParameterException missing(CommandLine cmd, List<String> parts) {
        return new ParameterException(cmd, "missing " + enumeration(parts));
    }

    /** {@code a}, {@code a and b}, {@code a, b and c}. */
    public static String enumeration(List<String> parts) {
        return list(parts, " and ");
    }

    private static String alternatives(List<String> parts) {
        return list(parts, " or ");
    }

    private static String list(List<String> parts, String last) {
        if (parts.size() <= 1) {
            return parts.isEmpty() ? "" : parts.get(0);
        }
        return String.join(", ", parts.subList(0, parts.size() - 1))
                + last
                + parts.get(parts.size() - 1);
    }

    /** The footer of {@code spec}: example lines verbatim, prose wrapped at the usage width. */
    static String footer(CommandSpec spec) {
        String[] lines = spec.usageMessage().footer();
        if (lines == null || lines.length == 0) {
            return "";
        }
        int width = spec.usageMessage().width();
        StringBuilder b = new StringBuilder();
        for (String line : lines) {
            // Footer lines are format strings to picocli: %% is a percent sign.
            String text = line.replace("%%", "%");
            if (text.isEmpty() || Character.isWhitespace(text.charAt(0))) {
                b.append(text).append(System.lineSeparator());
            } else {
                for (String wrapped : wrap(text, width)) {
                    b.append(wrapped).append(System.lineSeparator());
                }
            }
        }
        return b.toString();
    }

    /** Words of {@code text} in lines of at most {@code width} characters (longer words alone). */
    static List<String> wrap(String text, int width) {
        List<String> lines = new ArrayList<>();
        StringBuilder line = new StringBuilder();
        for (String word : text.split(" +")) {
            if (line.length() > 0 && line.length() + 1 + word.length() > width) {
                lines.add(line.toString());
                line.setLength(0);
            }
            if (line.length() > 0) {
                line.append(' ');
            }
            line.append(word);
        }
        if (line.length() > 0) {
            lines.add(line.toString());
        }
        return lines;
    }
}
