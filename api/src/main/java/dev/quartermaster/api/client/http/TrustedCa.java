package dev.quartermaster.api.client.http;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * A TLS context that trusts exactly the certificate authorities in one PEM file (the server's
 * {@code ca.crt}), not the system's: a client of a Quartermaster server trusts its cluster's CA.
 */
public final class TrustedCa {
  private TrustedCa() {}

  /** Trusts the CA certificates in {@code pem}; a missing or unreadable file says which and why. */
  public static SSLContext sslContext(Path pem) {
    try (var in = Files.newInputStream(pem)) {
      var store = KeyStore.getInstance(KeyStore.getDefaultType());
      store.load(null, null);
      int i = 0;
      for (var cert : CertificateFactory.getInstance("X.509").generateCertificates(in)) {
        store.setCertificateEntry("ca-" + i++, cert);
      }
      if (i == 0) {
        throw new IllegalArgumentException("CA file " + pem + " holds no certificate");
      }
      var trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      trust.init(store);
      var context = SSLContext.getInstance("TLS");
      context.init(null, trust.getTrustManagers(), null);
      return context;
    } catch (NoSuchFileException e) {
      throw new IllegalArgumentException(
          "CA file " + pem + " does not exist (copy the server's <data>/tls/ca.crt)");
    } catch (IOException | GeneralSecurityException e) {
      throw new IllegalArgumentException("cannot read CA file " + pem + ": " + e.getMessage(), e);
    }
  }
}
