/// What a barcode's payload means, when it follows a format people put in codes: a Wi-Fi network, a
/// contact card, a link, GS1 element strings on a product or a parcel, a North American driver's
/// licence. The parsers are strict (`PayloadParsing`): a payload that does not follow its format has
/// no parsed form at all, never a half-parsed one.
public enum ParsedPayload: Sendable, Equatable {
    case wifi(WiFiNetwork)
    case contact(Contact)
    case url(WebLink)
    case gs1([GS1Element])
    case aamva(DriverLicense)
    /// A parcel's tracking number read in text (`TextContentType.shipmentTrackingNumber`).
    case shipment(ShipmentTracking)
    /// An amount of money read in text (`TextContentType.currency`).
    case money(amount: String, currency: String)
    /// A date, time, range or duration read in text (`TextContentType.dateTimeDuration`): what it is
    /// (`date`, `time`, `dateTime`, `range`, `duration`) and its ISO 8601 value.
    case dateTime(kind: String, iso8601: String)
    /// A flight number read in text (`TextContentType.flightNumber`): the IATA airline designator and
    /// the number (with its suffix letter, if any).
    case flight(airline: String, number: String)
    /// A street address read in text (`TextContentType.fullStreetAddress`).
    case address(StreetAddress)

    /// The `parsed` object of an item (docs/protocol.md): `type` first, then the fields that are set.
    public var json: JSONValue {
        switch self {
        case .wifi(let network):
            return .object([
                ("type", .string("wifi")), ("ssid", .string(network.ssid)), ("security", .string(network.security)),
                ("hidden", .bool(network.hidden)),
            ])
        case .contact(let contact):
            var fields: [(String, JSONValue)] = [("type", .string("contact"))]
            fields += Self.whereSet([("name", contact.name), ("organization", contact.organization), ("title", contact.title)])
            for (key, list) in [("phones", contact.phones), ("emails", contact.emails), ("urls", contact.urls)] where !list.isEmpty {
                fields.append((key, .array(list.map { .string($0) })))
            }
            return .object(fields + Self.whereSet([("address", contact.address)]))
        case .url(let link):
            return .object([("type", .string("url")), ("url", .string(link.url)), ("scheme", .string(link.scheme)), ("host", .string(link.host))])
        case .gs1(let elements):
            return .object([
                ("type", .string("gs1")),
                ("elements", .array(elements.map { .object([("ai", .string($0.ai)), ("name", .string($0.name)), ("value", .string($0.value))]) })),
            ])
        case .aamva(let licence):
            return .object(
                [("type", .string("aamva"))]
                    + Self.whereSet([
                        ("familyName", licence.familyName), ("givenName", licence.givenName), ("middleName", licence.middleName),
                        ("dateOfBirth", licence.dateOfBirth), ("expiry", licence.expiry), ("jurisdiction", licence.jurisdiction),
                    ]) + [("issuer", .string(licence.issuer))])

        case .money(let amount, let currency):
            return .object([("type", .string("currency")), ("amount", .string(amount)), ("currency", .string(currency))])
        case .dateTime(let kind, let iso8601):
            return .object([("type", .string("dateTime")), ("kind", .string(kind)), ("iso8601", .string(iso8601))])
        case .flight(let airline, let number):
            return .object([("type", .string("flight")), ("airline", .string(airline)), ("number", .string(number))])
        case .address(let address):
            return .object(
                [("type", .string("address"))]
                    + Self.whereSet([
                        ("street", address.street), ("unit", address.unit), ("city", address.city), ("region", address.region),
                        ("postalCode", address.postalCode),
                    ]))
        case .shipment(let shipment):
            return .object(
                [("type", .string("shipmentTracking")), ("carrier", .string(shipment.carrier))] + Self.whereSet([("country", shipment.country)]))
        }
    }

    /// The fields that are set, as strings, in order.
    private static func whereSet(_ fields: [(String, String?)]) -> [(String, JSONValue)] {
        fields.compactMap { key, value in value.map { (key, .string($0)) } }
    }
}

/// A `WIFI:` code. The password is deliberately not kept: it is in the payload for the client that
/// joins the network, and nowhere else (it must not reach logs or dashboards through `parsed`).
public struct WiFiNetwork: Sendable, Equatable {
    public var ssid: String
    /// `WPA`, `WEP`, `nopass`, … as the code says (`nopass` when it says nothing).
    public var security: String
    public var hidden: Bool

    public init(ssid: String, security: String, hidden: Bool) {
        self.ssid = ssid
        self.security = security
        self.hidden = hidden
    }
}

/// A contact from a MECARD or a vCard.
public struct Contact: Sendable, Equatable {
    public var name: String?
    public var organization: String?
    public var title: String?
    public var phones: [String]
    public var emails: [String]
    public var urls: [String]
    /// The postal address, its parts joined with ", ".
    public var address: String?

    public init(
        name: String? = nil, organization: String? = nil, title: String? = nil, phones: [String] = [], emails: [String] = [],
        urls: [String] = [], address: String? = nil
    ) {
        self.name = name
        self.organization = organization
        self.title = title
        self.phones = phones
        self.emails = emails
        self.urls = urls
        self.address = address
    }
}

/// A web address: the whole of a payload that is an http(s) URL.
public struct WebLink: Sendable, Equatable {
    public var url: String
    public var scheme: String
    public var host: String

    public init(url: String, scheme: String, host: String) {
        self.url = url
        self.scheme = scheme
        self.host = host
    }
}

/// One GS1 element: its application identifier, the identifier's short name, the value as printed.
public struct GS1Element: Sendable, Equatable {
    public var ai: String
    public var name: String
    public var value: String

    public init(ai: String, name: String, value: String) {
        self.ai = ai
        self.name = name
        self.value = value
    }
}

/// The fields of an AAMVA driver's licence or ID card (the PDF417 on its back) that a kiosk checks:
/// who, born when, valid until when. Dates are `YYYY-MM-DD`.
public struct DriverLicense: Sendable, Equatable {
    public var familyName: String?
    public var givenName: String?
    public var middleName: String?
    public var dateOfBirth: String?
    public var expiry: String?
    /// The state or province of the address (`DAJ`).
    public var jurisdiction: String?
    /// The issuer's identification number (IIN), six digits.
    public var issuer: String

    public init(
        familyName: String? = nil, givenName: String? = nil, middleName: String? = nil, dateOfBirth: String? = nil,
        expiry: String? = nil, jurisdiction: String? = nil, issuer: String
    ) {
        self.familyName = familyName
        self.givenName = givenName
        self.middleName = middleName
        self.dateOfBirth = dateOfBirth
        self.expiry = expiry
        self.jurisdiction = jurisdiction
        self.issuer = issuer
    }
}

/// Which carrier a tracking number is for (`ups`, `fedex`, `usps`, `dhl`, `s10`: a postal item of the
/// UPU's format, with the country that issued it).
public struct ShipmentTracking: Sendable, Equatable {
    public var carrier: String
    public var country: String?

    public init(carrier: String, country: String? = nil) {
        self.carrier = carrier
        self.country = country
    }
}

/// A street address read in text (`TextContentType.fullStreetAddress`): its street (with the house
/// number), a unit, and its locality as printed, with the city, state or province and postal code
/// taken from it where they could be told apart.
public struct StreetAddress: Sendable, Equatable {
    public var street: String?
    public var unit: String?
    /// The locality as printed: `Los Angeles, CA 90042`, `10115 Berlin`.
    public var locality: String?
    public var city: String?
    /// A US state's or Canadian province's code.
    public var region: String?
    public var postalCode: String?

    public init(
        street: String? = nil, unit: String? = nil, locality: String? = nil, city: String? = nil, region: String? = nil, postalCode: String? = nil
    ) {
        self.street = street
        self.unit = unit
        self.locality = locality
        self.city = city
        self.region = region
        self.postalCode = postalCode
    }

    /// The address on one line: `5250 York Blvd, Suite 4, Los Angeles, CA 90042`.
    public var payload: String { [street, unit, locality].compactMap { $0 }.joined(separator: ", ") }
}
