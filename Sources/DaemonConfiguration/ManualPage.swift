import Foundation

/// scannerd.conf(5), written from the schema (`SettingsSchema.keys`): every key with its default, its
/// environment variable, its `scannerd run` option and whether a reload applies it — spelled once,
/// in the schema, and never again by hand (`make deb`).
public enum ManualPage {
    public static func configuration(version: String, date: String) -> String {
        var out = """
            .TH SCANNERD.CONF 5 "\(date)" "scannerd \(version)" "File Formats"
            .SH NAME
            scannerd.conf \\- configuration of the scannerd barcode and text scanner
            .SH SYNOPSIS
            .B /etc/scannerd/scannerd.conf
            .SH DESCRIPTION
            A YAML file of sections and keys, read by
            .BR scannerd (8)
            at start and on SIGHUP
            .RB ( "systemctl reload scannerd" ).
            Values come from, later ones winning: the defaults below, this file, the
            .B SCANNERD_*
            environment variables, the command line. A key that is not listed here is an error, with its
            line; so is a value of the wrong kind. A reload applies the keys marked
            .I live
            and reports the others as needing a restart; an invalid file is refused whole and the running
            configuration stays.
            .PP
            .B "scannerd check-config"
            checks a file without starting anything.
            .SH KEYS

            """
        let defaults = DaemonSettings()
        var section = ""
        for key in SettingsSchema.keys {
            let keySection = String(key.name.prefix { $0 != "." })
            if keySection != section {
                section = keySection
                out += ".SS \(escape(section))\n"
            }
            out += ".TP\n.B \(escape(key.name))\n\(escape(key.summary)).\n.br\nDefault: \(escape(key.value(in: defaults)))"
            out += "; environment: \(escape(key.environmentName))"
            if let flag = key.flag { out += "; option: \(escape(flag))" }
            out += key.live ? "; live.\n" : "; restart.\n"
        }
        out += """
            .SH FILES
            .TP
            .I /etc/scannerd/scannerd.conf
            the configuration (a conffile of the Debian package: kept on upgrade when changed)
            .SH SEE ALSO
            .BR scannerd (8),
            .BR scanctl (1),
            .I /usr/share/doc/scannerd/docs/configuration.md

            """
        return out
    }

    /// roff-safe text: a backslash doubled, a leading dot or quote escaped, dashes as minus signs.
    static func escape(_ text: String) -> String {
        var s = text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "-", with: "\\-")
        if s.hasPrefix(".") || s.hasPrefix("'") { s = "\\&" + s }
        return s
    }
}
