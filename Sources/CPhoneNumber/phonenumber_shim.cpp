// C ABI over libphonenumber. PhoneNumberUtil::GetInstance() is a thread-safe singleton and the matcher
// is created per call, so these functions may be called from any thread.
#include "CPhoneNumber.h"

#include <phonenumbers/phonenumbermatch.h>
#include <phonenumbers/phonenumbermatcher.h>
#include <phonenumbers/phonenumberutil.h>

#include <cstring>
#include <set>
#include <string>

using i18n::phonenumbers::PhoneNumberMatch;
using i18n::phonenumbers::PhoneNumberMatcher;
using i18n::phonenumbers::PhoneNumberUtil;

static PhoneNumberMatcher::Leniency toLeniency(cpn_leniency leniency) {
    switch (leniency) {
    case CPN_LENIENCY_POSSIBLE: return PhoneNumberMatcher::POSSIBLE;
    case CPN_LENIENCY_STRICT_GROUPING: return PhoneNumberMatcher::STRICT_GROUPING;
    case CPN_LENIENCY_EXACT_GROUPING: return PhoneNumberMatcher::EXACT_GROUPING;
    case CPN_LENIENCY_VALID:
    default: return PhoneNumberMatcher::VALID;
    }
}

extern "C" int32_t cpn_is_supported_region(const char *region) {
    if (region == nullptr) return 0;
    std::set<std::string> regions;
    PhoneNumberUtil::GetInstance()->GetSupportedRegions(&regions);
    return regions.count(std::string(region)) ? 1 : 0;
}

extern "C" int32_t cpn_find_numbers(const char *utf8_text, const char *region, cpn_leniency leniency,
                                    cpn_match *out, int32_t capacity) {
    if (utf8_text == nullptr || !cpn_is_supported_region(region)) return -1;
    const PhoneNumberUtil &util = *PhoneNumberUtil::GetInstance();
    // max_tries bounds the work on hostile input (the library's own default is "infinite").
    PhoneNumberMatcher matcher(util, std::string(utf8_text), std::string(region), toLeniency(leniency), 64);
    int32_t found = 0;
    PhoneNumberMatch match;
    while (matcher.HasNext()) {
        if (!matcher.Next(&match)) break;
        if (found < capacity && out != nullptr) {
            cpn_match &m = out[found];
            m.start = match.start();
            m.length = match.length();
            std::string e164;
            util.Format(match.number(), PhoneNumberUtil::E164, &e164);
            std::strncpy(m.e164, e164.c_str(), sizeof(m.e164) - 1);
            m.e164[sizeof(m.e164) - 1] = '\0';
        }
        found++;
    }
    return found;
}
