package dev.quartermaster.server.tls;

import dev.quartermaster.core.env.OutsideEnv;
import dev.quartermaster.core.files.DurableFile;
import dev.quartermaster.core.files.OwnerOnly;
import java.io.IOException;
import java.math.BigInteger;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.MessageDigest;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.security.spec.PKCS8EncodedKeySpec;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Date;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import org.bouncycastle.asn1.pkcs.PKCSObjectIdentifiers;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * The server's TLS material in {@code <data>/tls/}: a certificate authority of its own and a server
 * certificate it signed, made at first start (as k3s does) and kept: {@code ca.crt} (what clients
 * trust: copy it to them), {@code ca.key}, {@code server.crt}, {@code server.key} (keys 0600). The
 * server certificate names {@code localhost}, the loopback addresses, this host's name and every
 * name given (the address it listens on, say); one that lacks a name now is made again.
 */
@OutsideEnv("key generation needs a cryptographic source")
public final class ServerCertificates {
  public static final String DIR = "tls";
  private static final Duration CA_LIFETIME = Duration.ofDays(3650);
  private static final Duration SERVER_LIFETIME = Duration.ofDays(825);
  private static final SecureRandom RANDOM = new SecureRandom();
  private static final String KEYS = "RSA";

  /** A certificate and key, with the CA that signed it. */
  public record Material(X509Certificate ca, X509Certificate certificate, PrivateKey key) {}

  /** A CA's certificate and private key, PEM: what servers of one cluster share. */
  public record CaPem(String certificatePem, String keyPem) {}

  private ServerCertificates() {}

  /** A new CA, not written anywhere. */
  public static CaPem newCa(Instant now) throws IOException {
    return newCa(now, KEYS);
  }

  /** A new CA of {@code algorithm}'s keys ({@code RSA}, or {@code EC} as made before). */
  static CaPem newCa(Instant now, String algorithm) throws IOException {
    try {
      var pair = keyPair(algorithm);
      var ca =
          sign(
              new X500Name("CN=quartermaster-ca"),
              pair,
              new X500Name("CN=quartermaster-ca"),
              pair.getPrivate(),
              now,
              CA_LIFETIME,
              true,
              List.of());
      return new CaPem(
          pem("CERTIFICATE", ca.getEncoded()), pem("PRIVATE KEY", pair.getPrivate().getEncoded()));
    } catch (GeneralSecurityException | OperatorCreationException e) {
      throw new IOException("cannot make a CA: " + e.getMessage(), e);
    }
  }

  /**
   * Makes {@code <dataDir>/tls} hold the given CA (the cluster's, from the store); when it replaces
   * another, the server certificate that CA signed goes too, to be made again by {@link
   * #loadOrCreate}.
   */
  public static void installCa(Path dataDir, String certificatePem, String keyPem)
      throws IOException {
    var dir = dataDir.resolve(DIR);
    Files.createDirectories(dir);
    OwnerOnly.directory(dir);
    var caCert = dir.resolve("ca.crt");
    if (Files.exists(caCert) && Files.readString(caCert).equals(certificatePem)) {
      return;
    }
    DurableFile.replace(dir.resolve("ca.key"), keyPem.getBytes(StandardCharsets.US_ASCII));
    DurableFile.replace(caCert, certificatePem.getBytes(StandardCharsets.US_ASCII));
    Files.deleteIfExists(dir.resolve("server.crt"));
  }

  /**
   * Loads {@code <dataDir>/tls}, making whatever is missing; {@code names} go into the server
   * certificate.
   */
  public static Material loadOrCreate(Path dataDir, List<String> names, Instant now)
      throws IOException {
    var dir = dataDir.resolve(DIR);
    Files.createDirectories(dir);
    OwnerOnly.directory(dir);
    try {
      var caCert = dir.resolve("ca.crt");
      var caKeyFile = dir.resolve("ca.key");
      if (!Files.exists(caCert) || !Files.exists(caKeyFile)) {
        var made = newCa(now);
        installCa(
            dataDir,
            made.certificatePem(),
            made.keyPem()); // and drops a server.crt signed by a CA that is gone
      }
      var ca = readCertificate(caCert);
      var caKey = readKey(caKeyFile);
      var wanted = subjectNames(names);
      var serverCert = dir.resolve("server.crt");
      var serverKey = dir.resolve("server.key");
      if (!Files.exists(serverCert)
          || !Files.exists(serverKey)
          || !covers(readCertificate(serverCert), wanted)) {
        var pair = keyPair();
        var cert =
            sign(
                new X500Name("CN=quartermaster-server"),
                pair,
                new X500Name(ca.getSubjectX500Principal().getName()),
                caKey,
                now,
                SERVER_LIFETIME,
                false,
                wanted);
        writeKey(serverKey, pair.getPrivate());
        Files.writeString(
            serverCert,
            pem("CERTIFICATE", cert.getEncoded()) + pem("CERTIFICATE", ca.getEncoded()));
      }
      return new Material(ca, readCertificate(serverCert), readKey(serverKey));
    } catch (GeneralSecurityException | OperatorCreationException e) {
      throw new IOException(
          "cannot make or read the TLS material in " + dir + ": " + e.getMessage(), e);
    }
  }

  /** {@code SHA256:AB:CD:…}: what an operator compares with what a client was given. */
  public static String fingerprint(X509Certificate cert) {
    try {
      var digest = MessageDigest.getInstance("SHA-256").digest(cert.getEncoded());
      return "SHA256:" + HexFormat.ofDelimiter(":").withUpperCase().formatHex(digest);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("every JDK has SHA-256", e);
    }
  }

  /** Reads the first certificate of a PEM file. */
  public static X509Certificate readCertificate(Path pem)
      throws IOException, GeneralSecurityException {
    try (var in = Files.newInputStream(pem)) {
      return (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in);
    }
  }

  private static List<String> subjectNames(List<String> extra) {
    var names = new ArrayList<>(List.of("localhost", "127.0.0.1", "::1"));
    try {
      names.add(InetAddress.getLocalHost().getHostName().toLowerCase(Locale.ROOT));
    } catch (IOException e) {
      // no host name to add: the others still work
    }
    extra.stream()
        .filter(n -> !n.isBlank() && !n.equals("0.0.0.0") && !n.equals("::"))
        .forEach(names::add);
    return names.stream().distinct().toList();
  }

  private static boolean covers(X509Certificate cert, List<String> names)
      throws GeneralSecurityException {
    var have = new ArrayList<String>();
    var sans = cert.getSubjectAlternativeNames();
    if (sans != null) {
      sans.forEach(s -> have.add(String.valueOf(s.get(1)).toLowerCase(Locale.ROOT)));
    }
    return names.stream().allMatch(n -> have.contains(normalIp(n)) || have.contains(n));
  }

  /** {@code ::1} as the JDK prints it back ({@code 0:0:0:0:0:0:0:1}). */
  private static String normalIp(String name) {
    if (!isIp(name)) {
      return name;
    }
    try {
      return InetAddress.getByName(name).getHostAddress();
    } catch (IOException e) {
      return name;
    }
  }

  private static boolean isIp(String name) {
    return name.contains(":") || name.chars().allMatch(c -> Character.isDigit(c) || c == '.');
  }

  /**
   * RSA 2048, as kubeadm makes a cluster's. Not EC: a client is a fresh JVM for each command, and
   * its first ECDSA verification builds the JDK's P-256 tables in interpreted code, 66 ms of a
   * command's 200 (verifying RSA costs it under 1 ms). Material made before with EC keys is still
   * read and used.
   */
  private static KeyPair keyPair() throws GeneralSecurityException {
    return keyPair(KEYS);
  }

  private static KeyPair keyPair(String algorithm) throws GeneralSecurityException {
    var generator = KeyPairGenerator.getInstance(algorithm);
    if (algorithm.equals("EC")) {
      generator.initialize(new ECGenParameterSpec("secp256r1"), RANDOM);
    } else {
      generator.initialize(2048, RANDOM);
    }
    return generator.generateKeyPair();
  }

  /** The signature an issuer's key makes: a CA of EC keys, made before RSA, still signs. */
  private static String signatureAlgorithm(PrivateKey issuerKey) {
    return issuerKey.getAlgorithm().equals("EC") ? "SHA256withECDSA" : "SHA256withRSA";
  }

  private static X509Certificate sign(
      X500Name subject,
      KeyPair subjectKeys,
      X500Name issuer,
      PrivateKey issuerKey,
      Instant now,
      Duration lifetime,
      boolean isCa,
      List<String> names)
      throws GeneralSecurityException, OperatorCreationException, IOException {
    X509v3CertificateBuilder builder =
        new JcaX509v3CertificateBuilder(
            issuer,
            new BigInteger(64, RANDOM).abs(),
            Date.from(now.minus(Duration.ofMinutes(5))),
            Date.from(now.plus(lifetime)),
            subject,
            subjectKeys.getPublic());
    builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(isCa));
    if (isCa) {
      builder.addExtension(
          Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign));
    } else {
      builder.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature));
      builder.addExtension(
          Extension.extendedKeyUsage, false, new ExtendedKeyUsage(KeyPurposeId.id_kp_serverAuth));
      var general =
          names.stream()
              .map(n -> new GeneralName(isIp(n) ? GeneralName.iPAddress : GeneralName.dNSName, n))
              .toArray(GeneralName[]::new);
      builder.addExtension(Extension.subjectAlternativeName, false, new GeneralNames(general));
    }
    var signer = new JcaContentSignerBuilder(signatureAlgorithm(issuerKey)).build(issuerKey);
    return new JcaX509CertificateConverter().getCertificate(builder.build(signer));
  }

  private static void writeKey(Path file, PrivateKey key) throws IOException {
    Files.deleteIfExists(file);
    Files.createFile(
        file,
        java.nio.file.attribute.PosixFilePermissions.asFileAttribute(
            java.nio.file.attribute.PosixFilePermissions.fromString("rw-------")));
    Files.writeString(
        file, pem("PRIVATE KEY", key.getEncoded())); // PKCS#8, as Netty and openssl read it
  }

  private static PrivateKey readKey(Path file) throws IOException, GeneralSecurityException {
    var text = Files.readString(file, StandardCharsets.US_ASCII);
    var body = text.replaceAll("-----(BEGIN|END) PRIVATE KEY-----", "").replaceAll("\\s", "");
    var der = Base64.getDecoder().decode(body);
    // PKCS#8 names its algorithm: RSA now, EC in material made before.
    var algorithm = PrivateKeyInfo.getInstance(der).getPrivateKeyAlgorithm().getAlgorithm();
    var type = algorithm.equals(PKCSObjectIdentifiers.rsaEncryption) ? "RSA" : "EC";
    return KeyFactory.getInstance(type).generatePrivate(new PKCS8EncodedKeySpec(der));
  }

  private static String pem(String type, byte[] der) {
    return "-----BEGIN "
        + type
        + "-----\n"
        + Base64.getMimeEncoder(64, new byte[] {'\n'}).encodeToString(der)
        + "\n-----END "
        + type
        + "-----\n";
  }
}
