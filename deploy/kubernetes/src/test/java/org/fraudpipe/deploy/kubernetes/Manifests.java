package org.fraudpipe.deploy.kubernetes;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import tools.jackson.databind.MappingIterator;
import tools.jackson.dataformat.yaml.YAMLMapper;

/**
 * The YAML documents of deploy/kubernetes, as plain Java values (maps, lists, strings, numbers,
 * booleans) so that a test can copy and change one before it is validated.
 */
final class Manifests {

    static final YAMLMapper YAML = YAMLMapper.builder().build();

    /** One document of a file. */
    record Doc(Path file, int index, Map<String, Object> content) {

        String kind() {
            return (String) content.get("kind");
        }

        String apiVersion() {
            return (String) content.get("apiVersion");
        }

        String name() {
            return (String) map(content, "metadata").get("name");
        }

        /** A deep, changeable copy of the content. */
        Map<String, Object> copy() {
            return deepCopy(content);
        }

        @Override
        public String toString() {
            return module().relativize(file) + "#" + index + " (" + kind() + " " + name() + ")";
        }
    }

    private Manifests() {}

    /** The module's directory (the working directory of the tests under Maven). */
    static Path module() {
        return Path.of(System.getProperty("basedir", "")).toAbsolutePath();
    }

    /** Every document under manifests/ (what `kubectl apply -f manifests/` applies). */
    static List<Doc> manifests() {
        return docsUnder(module().resolve("manifests"));
    }

    /** Every document under examples/ (the Secrets' shape). */
    static List<Doc> examples() {
        return docsUnder(module().resolve("examples"));
    }

    static List<Doc> ofKind(List<Doc> docs, String kind) {
        return docs.stream().filter(d -> kind.equals(d.kind())).toList();
    }

    static Doc named(List<Doc> docs, String kind, String name) {
        return ofKind(docs, kind).stream()
                .filter(d -> name.equals(d.name()))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no " + kind + " " + name + " in " + docs));
    }

    private static List<Doc> docsUnder(Path dir) {
        List<Doc> docs = new ArrayList<>();
        try (Stream<Path> files = Files.list(dir)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".yaml")).sorted().toList()) {
                docs.addAll(read(file));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return docs;
    }

    @SuppressWarnings("unchecked")
    static List<Doc> read(Path file) {
        List<Doc> docs = new ArrayList<>();
        try (MappingIterator<Object> it = YAML.readerFor(Object.class).readValues(file.toFile())) {
            int index = 0;
            while (it.hasNextValue()) {
                Object value = it.nextValue();
                if (value instanceof Map<?, ?> m) {
                    docs.add(new Doc(file, index, (Map<String, Object>) m));
                }
                index++;
            }
        }
        return docs;
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> map(Map<String, Object> parent, String key) {
        Object v = parent.get(key);
        if (!(v instanceof Map)) {
            throw new AssertionError("'" + key + "' is not a mapping: " + v);
        }
        return (Map<String, Object>) v;
    }

    @SuppressWarnings("unchecked")
    static List<Object> list(Map<String, Object> parent, String key) {
        Object v = parent.get(key);
        if (!(v instanceof List)) {
            throw new AssertionError("'" + key + "' is not a list: " + v);
        }
        return (List<Object>) v;
    }

    /**
     * The value at a path of keys (maps) and indexes (lists), e.g. at(doc, "spec", "job", "args").
     */
    @SuppressWarnings("unchecked")
    static <T> T at(Object root, Object... path) {
        Object v = root;
        for (Object step : path) {
            if (step instanceof Integer i) {
                v = ((List<Object>) v).get(i);
            } else {
                v = ((Map<String, Object>) v).get((String) step);
            }
            if (v == null) {
                throw new AssertionError("nothing at " + List.of(path));
            }
        }
        return (T) v;
    }

    @SuppressWarnings("unchecked")
    static <T> T deepCopy(T value) {
        if (value instanceof Map<?, ?> m) {
            Map<String, Object> out = new LinkedHashMap<>();
            m.forEach((k, v) -> out.put((String) k, deepCopy(v)));
            return (T) out;
        }
        if (value instanceof List<?> l) {
            List<Object> out = new ArrayList<>();
            l.forEach(v -> out.add(deepCopy(v)));
            return (T) out;
        }
        return value;
    }

    /** The container named {@code name} of a pod spec. */
    @SuppressWarnings("unchecked")
    static Map<String, Object> container(Map<String, Object> podSpec, String name) {
        for (Object c : list(podSpec, "containers")) {
            Map<String, Object> container = (Map<String, Object>) c;
            if (name.equals(container.get("name"))) {
                return container;
            }
        }
        throw new AssertionError("no container " + name + " in " + podSpec);
    }
}
