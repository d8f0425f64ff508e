import java.io.IOException;
import java.lang.classfile.ClassFile;
import java.lang.classfile.ClassFileVersion;
import java.lang.classfile.ClassHierarchyResolver;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import java.util.zip.ZipOutputStream;

/**
 * Rewrites the classes of a jar compiled for Java 5 or older (picocli's are) as Java 8 classes, with
 * the stack maps the JDK's class-file API computes for them. The JVM cannot keep a class that old in
 * an ahead-of-time cache (it must verify it anew at every start with the old verifier), and picocli
 * is loaded by every command: a third of a short command's time went there.
 *
 * <p>Run at package time on the shaded jar: {@code java ClassFileUpgrade.java JAR}. A class the API
 * cannot rewrite (say, one with the old jsr/ret subroutines) is kept as it was and named.
 */
public final class ClassFileUpgrade {
  private static final int FIRST_WITH_STACK_MAPS = 50;
  private static final int TARGET = ClassFile.JAVA_8_VERSION;

  public static void main(String[] args) throws Exception {
    var jar = Path.of(args[0]);
    var out = jar.resolveSibling(jar.getFileName() + ".upgrading");
    int upgraded = 0;
    int kept = 0;
    try (var loader = new URLClassLoader(new java.net.URL[] {jar.toUri().toURL()}, null);
        var in = new ZipFile(jar.toFile());
        var zip = new ZipOutputStream(Files.newOutputStream(out))) {
      var resolver = ClassHierarchyResolver.defaultResolver()
          .orElse(ClassHierarchyResolver.ofResourceParsing(loader)).cached();
      var classFile = ClassFile.of(ClassFile.StackMapsOption.GENERATE_STACK_MAPS,
          ClassFile.ClassHierarchyResolverOption.of(resolver));
      for (var entries = in.entries(); entries.hasMoreElements(); ) {
        var entry = entries.nextElement();
        byte[] bytes = in.getInputStream(entry).readAllBytes();
        if (entry.getName().endsWith(".class") && major(bytes) < FIRST_WITH_STACK_MAPS) {
          try {
            bytes = upgrade(classFile, bytes);
            upgraded++;
          } catch (RuntimeException e) {
            System.err.println("ClassFileUpgrade: kept " + entry.getName() + " as it was: " + e.getMessage());
            kept++;
          }
        }
        var copy = new ZipEntry(entry.getName());
        copy.setTime(entry.getTime());
        zip.putNextEntry(copy);
        zip.write(bytes);
        zip.closeEntry();
      }
    }
    Files.move(out, jar, StandardCopyOption.REPLACE_EXISTING);
    System.out.println("ClassFileUpgrade: " + upgraded + " class(es) of " + jar.getFileName()
        + " rewritten as Java 8 classes" + (kept > 0 ? ", " + kept + " kept" : ""));
  }

  private static int major(byte[] bytes) {
    return bytes.length < 8 ? Integer.MAX_VALUE : ((bytes[6] & 0xff) << 8) | (bytes[7] & 0xff);
  }

  private static byte[] upgrade(ClassFile classFile, byte[] bytes) throws IOException {
    var model = classFile.parse(bytes);
    return classFile.build(model.thisClass().asSymbol(), builder -> {
      for (var element : model) {
        if (!(element instanceof ClassFileVersion)) {
          builder.with(element);
        }
      }
      builder.withVersion(TARGET, 0);
    });
  }
}
