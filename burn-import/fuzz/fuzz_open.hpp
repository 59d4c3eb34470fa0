// What each importer fuzzer provides: its reader for a file (the parser, without the plugin).
#pragma once

#include <memory>
#include <string>

#include "burn/record/recorder.hpp"

std::unique_ptr<burn::record::RecordReader> open_for_fuzz(const std::string& path);
