// The number rules for the hosted pages' island: libphonenumber's core with Zimbabwe's metadata
// alone (about 1 KB instead of the full set's 150), so a cheap phone validates and names the
// wallet as the customer types. Same rules and messages as the server (msisdn-rules.ts).
import { parsePhoneNumberFromString, type MetadataJson } from "libphonenumber-js/core";
import { msisdnNormaliser } from "./msisdn-rules";

/**
 * Zimbabwe's entry of libphonenumber-js's max metadata, copied as is. msisdn.test.ts fails when
 * the installed package's entry differs (an upgrade changed it): copy the new one here.
 */
export const ZW_METADATA = {"version":4,"country_calling_codes":{"263":["ZW"]},"countries":{"ZW":["263","00","8\\d{6}(?:\\d{3})?|[235-8]\\d{8}",[7,9,10],[["(\\d{3})(\\d{4})","$1 $2",["80"],"0$1"],["(\\d{2})(\\d{3})(\\d{3,4})","$1 $2 $3",["29[013-9]"],"0$1"],["(\\d{2})(\\d{7})","$1 $2",["[256]|39|8[13-59]"],"(0$1)"],["(\\d{2})(\\d{3})(\\d{4})","$1 $2 $3",["7"],"0$1"],["(\\d{3})(\\d{3})(\\d{3,4})","$1 $2 $3",["3"],"0$1"],["(\\d{4})(\\d{6})","$1 $2",["8"],"0$1"]],"0",0,0,0,0,0,[["(?:2(?:02[014]|(?:42|9\\d)\\d|[56]20|72[03])|3(?:123|92\\d)|5(?:42\\d|525)|6(?:[16-8]21|52[013])|8(?:[1349]28|523))\\d{5}",[9]],["7(?:[1278]\\d|3[1-9]|51|9[01])\\d{6}",[9]],["80(?:[01]\\d|20|8[0-8])\\d{3}",[7]],0,0,0,0,0,["86(?:1[12]|22|30|44|55|77|8[368])\\d{6}",[10]]]]}} as unknown as MetadataJson;

export const normaliseMsisdnZw = msisdnNormaliser((text, options) => parsePhoneNumberFromString(text, options, ZW_METADATA));
