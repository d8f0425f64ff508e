package dev.quartermaster.agent.logs;

import dev.quartermaster.core.env.OutsideEnv;
import dev.quartermaster.core.files.DurableFile;
import dev.quartermaster.core.files.OwnerOnly;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.HexFormat;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * The agent's log endpoint certificate: self-signed, made at first start and kept in {@code
 * <state>/tls/logs.p12} (0600). Nobody needs to trust a CA for it: the agent publishes its SHA-256
 * in its Node's status, which only its own credential can write, and the API server pins exactly
 * that certificate.
 */
@OutsideEnv("a key must come from a cryptographic source, never a seeded one")
public final class EndpointCertificate {
  static final String FILE = "logs.p12";
  private static final char[] NO_PASSWORD = new char[0];
  private static final String ALIAS = "logs";

  private final KeyStore store;
  private final String sha256;

  private EndpointCertificate(KeyStore store) throws GeneralSecurityException {
    this.store = store;
    var cert = store.getCertificate(ALIAS);
    this.sha256 =
        HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(cert.getEncoded()));
  }

  /** The certificate in {@code tlsDir}, made there first if there is none. */
  public static EndpointCertificate loadOrCreate(Path tlsDir, String node) throws IOException {
    var file = tlsDir.resolve(FILE);
    try {
      var store = KeyStore.getInstance("PKCS12");
      if (Files.exists(file)) {
        try (var in = new ByteArrayInputStream(Files.readAllBytes(file))) {
          store.load(in, NO_PASSWORD);
        }
        if (!store.isKeyEntry(ALIAS)) {
          throw new IOException(file + " holds no key '" + ALIAS + "'; move it away to make anew");
        }
        return new EndpointCertificate(store);
      }
      Files.createDirectories(tlsDir);
      OwnerOnly.directory(tlsDir);
      var generator = KeyPairGenerator.getInstance("EC");
      generator.initialize(new ECGenParameterSpec("secp256r1"), new SecureRandom());
      var keys = generator.generateKeyPair();
      var name = new X500Name("CN=qm-agent " + node + " task logs");
      var now = Instant.now();
      var builder =
          new JcaX509v3CertificateBuilder(
              name,
              new BigInteger(64, new SecureRandom()).abs(),
              Date.from(now.minus(Duration.ofMinutes(5))),
              Date.from(now.plus(Duration.ofDays(3650))),
              name,
              keys.getPublic());
      builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(false));
      X509Certificate cert =
          new JcaX509CertificateConverter()
              .getCertificate(
                  builder.build(
                      new JcaContentSignerBuilder("SHA256withECDSA").build(keys.getPrivate())));
      store.load(null, NO_PASSWORD);
      store.setKeyEntry(ALIAS, keys.getPrivate(), NO_PASSWORD, new Certificate[] {cert});
      var bytes = new ByteArrayOutputStream();
      store.store(bytes, NO_PASSWORD);
      DurableFile.replace(file, bytes.toByteArray());
      OwnerOnly.file(file);
      return new EndpointCertificate(store);
    } catch (GeneralSecurityException | OperatorCreationException e) {
      throw new IOException("cannot load or make the log endpoint's certificate " + file, e);
    }
  }

  /** The SHA-256 of the DER certificate, lowercase hex: what the Node's status publishes. */
  public String sha256() {
    return sha256;
  }

  /** A server-side TLS context presenting this certificate. */
  SSLContext serverContext() throws IOException {
    try {
      var keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
      keys.init(store, NO_PASSWORD);
      var context = SSLContext.getInstance("TLS");
      context.init(keys.getKeyManagers(), null, null);
      return context;
    } catch (GeneralSecurityException e) {
      throw new IOException("cannot serve TLS with the log endpoint's certificate", e);
    }
  }
}
