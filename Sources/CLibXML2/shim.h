// libxml2 can be built against ICU, whose headers clash with Foundation's own copy
// ("'UErrorCode' has different definitions in different modules"); pipectl never uses
// libxml2's ICU paths, so hide them before the other headers see the flag.
#include <libxml/xmlversion.h>
#undef LIBXML_ICU_ENABLED
#include <libxml/parser.h>
#include <libxml/xmlreader.h>
#include <libxml/xmlerror.h>
