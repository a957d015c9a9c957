// libxml2 walk over <testsuites>/<testsuite>/<testcase>/<failure>.
#include "support/junit_reader.h"

#include <libxml/parser.h>
#include <libxml/tree.h>

#include <cstring>

namespace swz::test {

namespace {

std::string attr(xmlNode* n, const char* name) {
  xmlChar* v = xmlGetProp(n, reinterpret_cast<const xmlChar*>(name));
  if (!v) return "";
  std::string s(reinterpret_cast<const char*>(v));
  xmlFree(v);
  return s;
}

bool is(xmlNode* n, const char* name) {
  return n->type == XML_ELEMENT_NODE && std::strcmp(reinterpret_cast<const char*>(n->name), name) == 0;
}

}  // namespace

ParsedJUnit parse_junit(const std::string& xml) {
  ParsedJUnit out;
  xmlDoc* doc = xmlReadMemory(xml.data(), static_cast<int>(xml.size()), "junit.xml", nullptr,
                              XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
  if (!doc) {
    const xmlError* e = xmlGetLastError();
    out.error = e && e->message ? e->message : "not well-formed";
    return out;
  }
  xmlNode* root = xmlDocGetRootElement(doc);
  xmlNode* suite = nullptr;
  if (root && is(root, "testsuite")) suite = root;
  else if (root && is(root, "testsuites"))
    for (xmlNode* c = root->children; c && !suite; c = c->next)
      if (is(c, "testsuite")) suite = c;
  if (!suite) {
    out.error = "no <testsuite> element";
    xmlFreeDoc(doc);
    return out;
  }
  out.suite_name = attr(suite, "name");
  out.tests = std::atoi(attr(suite, "tests").c_str());
  out.failures = std::atoi(attr(suite, "failures").c_str());
  for (xmlNode* c = suite->children; c; c = c->next) {
    if (!is(c, "testcase")) continue;
    ParsedCase pc;
    pc.name = attr(c, "name");
    pc.classname = attr(c, "classname");
    for (xmlNode* f = c->children; f; f = f->next)
      if (is(f, "failure")) {
        pc.failed = true;
        pc.message = attr(f, "message");
        xmlChar* t = xmlNodeGetContent(f);
        if (t) {
          pc.text = reinterpret_cast<const char*>(t);
          xmlFree(t);
        }
      }
    out.cases.push_back(pc);
  }
  out.ok = true;
  xmlFreeDoc(doc);
  return out;
}

}  // namespace swz::test
