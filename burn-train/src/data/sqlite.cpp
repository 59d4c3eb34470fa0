// The SQLite dataset, its writer, and the TensorItem blob format (sqlite.hpp).
#include "burn/data/sqlite.hpp"

#include <sqlite3.h>

#include <cstring>
#include <mutex>

#include "io.hpp"

namespace burn::data {
namespace {

constexpr const char* kSqliteOp = "data::SqliteDataset";
constexpr const char* kWriterOp = "data::SqliteDatasetWriter";
constexpr char kMagic[4] = {'B', 'D', 'I', '1'};

// Split names become table names: kept to identifier characters, so no quoting question arises.
void check_split(const char* op, const std::string& split) {
  bool ok = !split.empty() && !(split[0] >= '0' && split[0] <= '9');
  for (char c : split) ok = ok && (std::isalnum(static_cast<unsigned char>(c)) || c == '_');
  if (!ok) throw DataError(op, "split name " + detail::quoted(split) + " must be letters, digits and '_'");
}

std::string db_error(sqlite3* db) { return db ? sqlite3_errmsg(db) : "out of memory"; }

template <typename T>
void put(std::vector<uint8_t>& out, T v) {
  size_t at = out.size();
  out.resize(at + sizeof(T));
  std::memcpy(out.data() + at, &v, sizeof(T));  // little-endian hosts only (x86-64, aarch64), as the format says
}

struct Reader {
  const uint8_t* p;
  size_t left;
  const std::string& where;
  void need(size_t n, const char* what) {
    if (n > left) throw DataError(kSqliteOp, where + ": item blob truncated in " + what);
  }
  template <typename T>
  T get(const char* what) {
    need(sizeof(T), what);
    T v;
    std::memcpy(&v, p, sizeof(T));
    p += sizeof(T), left -= sizeof(T);
    return v;
  }
};

}  // namespace

TensorItem& TensorItem::add(std::string name, TensorData data) {
  if (contains(name)) throw DataError("data::TensorItem", "field " + detail::quoted(name) + " added twice");
  names_.push_back(std::move(name));
  tensors_.push_back(std::move(data));
  return *this;
}

bool TensorItem::contains(std::string_view name) const {
  for (const auto& n : names_)
    if (n == name) return true;
  return false;
}

const TensorData& TensorItem::at(std::string_view name) const {
  for (size_t i = 0; i < names_.size(); ++i)
    if (names_[i] == name) return tensors_[i];
  std::string have;
  for (const auto& n : names_) have += (have.empty() ? "" : ", ") + n;
  throw DataError("data::TensorItem", "no field " + detail::quoted(std::string(name)) + " (fields: " + have + ")");
}

std::vector<uint8_t> TensorItem::encode() const {
  std::vector<uint8_t> out(kMagic, kMagic + 4);
  put<uint32_t>(out, static_cast<uint32_t>(names_.size()));
  for (size_t i = 0; i < names_.size(); ++i) {
    const TensorData& t = tensors_[i];
    if (names_[i].size() > 0xFFFF || t.shape().rank() > 0xFF)
      throw DataError("data::TensorItem",
                      "field " + detail::quoted(names_[i].substr(0, 64)) + ": name or rank too long");
    put<uint16_t>(out, static_cast<uint16_t>(names_[i].size()));
    out.insert(out.end(), names_[i].begin(), names_[i].end());
    put<uint8_t>(out, static_cast<uint8_t>(t.dtype()));
    put<uint8_t>(out, static_cast<uint8_t>(t.shape().rank()));
    for (int64_t d : t.shape()) put<int64_t>(out, d);
    out.insert(out.end(), t.bytes().begin(), t.bytes().end());
  }
  return out;
}

TensorItem TensorItem::decode(const uint8_t* data, size_t size, const std::string& where) {
  Reader r{data, size, where};
  r.need(4, "magic");
  if (std::memcmp(data, kMagic, 4) != 0) throw DataError(kSqliteOp, where + ": item blob does not start with 'BDI1'");
  r.p += 4, r.left -= 4;
  auto count = r.get<uint32_t>("count");
  TensorItem item;
  for (uint32_t i = 0; i < count; ++i) {
    auto len = r.get<uint16_t>("name");
    r.need(len, "name");
    std::string name(reinterpret_cast<const char*>(r.p), len);
    r.p += len, r.left -= len;
    auto dt = r.get<uint8_t>("dtype");
    if (dt > static_cast<uint8_t>(DType::Bool))
      throw DataError(kSqliteOp,
                      where + ": field " + detail::quoted(name) + " has unknown dtype " + std::to_string(dt));
    auto rank = r.get<uint8_t>("rank");
    std::vector<int64_t> dims(rank);
    unsigned __int128 bytes = dtype_size(static_cast<DType>(dt));
    for (auto& d : dims) {
      d = r.get<int64_t>("shape");
      if (d < 0) throw DataError(kSqliteOp, where + ": field " + detail::quoted(name) + " has a negative dim");
      bytes *= static_cast<uint64_t>(d);
    }
    // Checked against the blob before allocating.
    if (bytes > r.left)
      throw DataError(kSqliteOp, where + ": field " + detail::quoted(name) + " claims " + Shape(dims).to_string() +
                                     " but the blob has " + std::to_string(r.left) + " bytes left");
    TensorData t = TensorData::uninitialized(Shape(dims), static_cast<DType>(dt));
    if (bytes) std::memcpy(t.raw(), r.p, static_cast<size_t>(bytes));
    r.p += static_cast<size_t>(bytes), r.left -= static_cast<size_t>(bytes);
    item.add(std::move(name), std::move(t));
  }
  if (r.left) throw DataError(kSqliteOp, where + ": " + std::to_string(r.left) + " bytes after the last field");
  return item;
}

namespace {
struct ReadConn {
  sqlite3* db = nullptr;
  sqlite3_stmt* stmt = nullptr;
  ~ReadConn() {
    sqlite3_finalize(stmt);
    sqlite3_close(db);
  }
};

std::unique_ptr<ReadConn> open_reader(const std::string& path, const std::string& split) {
  auto c = std::make_unique<ReadConn>();
  int rc = sqlite3_open_v2(path.c_str(), &c->db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, nullptr);
  if (rc != SQLITE_OK) throw DataError(kSqliteOp, detail::quoted(path) + ": cannot open: " + db_error(c->db));
  std::string sql = "SELECT item FROM " + split + " WHERE row_id = ?";
  if (sqlite3_prepare_v2(c->db, sql.c_str(), -1, &c->stmt, nullptr) != SQLITE_OK)
    throw DataError(kSqliteOp, detail::quoted(path) + ": table " + detail::quoted(split) + ": " + db_error(c->db));
  return c;
}
}  // namespace

// Connections of the reading threads: taken for one get(), then given back.
struct SqliteDataset::Pool {
  std::mutex mu;
  std::vector<std::unique_ptr<ReadConn>> free;
};

SqliteDataset::SqliteDataset(const std::string& path, const std::string& split)
    : path_(path), split_(split), pool_(std::make_unique<Pool>()) {
  check_split(kSqliteOp, split);
  std::vector<std::string> tables = splits(path);
  bool found = false;
  for (const auto& t : tables) found = found || t == split;
  if (!found) {
    std::string have;
    for (const auto& t : tables) have += (have.empty() ? "" : ", ") + t;
    throw DataError(kSqliteOp, detail::quoted(path) + ": no table " + detail::quoted(split) +
                                   " (tables: " + (have.empty() ? "none" : have) + ")");
  }
  auto c = open_reader(path, split);
  sqlite3_stmt* count = nullptr;
  std::string sql = "SELECT COUNT(*) FROM " + split;
  if (sqlite3_prepare_v2(c->db, sql.c_str(), -1, &count, nullptr) != SQLITE_OK || sqlite3_step(count) != SQLITE_ROW) {
    sqlite3_finalize(count);
    throw DataError(kSqliteOp,
                    detail::quoted(path) + ": cannot count table " + detail::quoted(split) + ": " + db_error(c->db));
  }
  size_ = static_cast<size_t>(sqlite3_column_int64(count, 0));
  sqlite3_finalize(count);
  pool_->free.push_back(std::move(c));
}

SqliteDataset::~SqliteDataset() = default;

std::vector<std::string> SqliteDataset::splits(const std::string& path) {
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
    std::string msg = db_error(db);
    sqlite3_close(db);
    throw DataError(kSqliteOp, detail::quoted(path) + ": cannot open: " + msg);
  }
  std::vector<std::string> out;
  sqlite3_stmt* st = nullptr;
  const char* sql = "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name";
  int rc = sqlite3_prepare_v2(db, sql, -1, &st, nullptr);
  if (rc == SQLITE_OK) {
    while ((rc = sqlite3_step(st)) == SQLITE_ROW)
      out.emplace_back(reinterpret_cast<const char*>(sqlite3_column_text(st, 0)));
  }
  std::string msg = db_error(db);
  sqlite3_finalize(st);
  sqlite3_close(db);
  if (rc != SQLITE_DONE) throw DataError(kSqliteOp, detail::quoted(path) + ": not a readable SQLite database: " + msg);
  return out;
}

std::optional<std::vector<uint8_t>> SqliteDataset::get_blob(size_t index) const {
  if (index >= size_) return std::nullopt;
  std::unique_ptr<ReadConn> c;
  {
    std::lock_guard lock(pool_->mu);
    if (!pool_->free.empty()) {
      c = std::move(pool_->free.back());
      pool_->free.pop_back();
    }
  }
  if (!c) c = open_reader(path_, split_);
  sqlite3_reset(c->stmt);
  sqlite3_bind_int64(c->stmt, 1, static_cast<sqlite3_int64>(index + 1));
  int rc = sqlite3_step(c->stmt);
  std::optional<std::vector<uint8_t>> out;
  std::string err;
  if (rc == SQLITE_ROW) {
    auto* p = static_cast<const uint8_t*>(sqlite3_column_blob(c->stmt, 0));
    out.emplace(p, p + sqlite3_column_bytes(c->stmt, 0));
  } else {
    err = rc == SQLITE_DONE ? "row_id " + std::to_string(index + 1) + " is missing" : db_error(c->db);
  }
  sqlite3_reset(c->stmt);
  {
    std::lock_guard lock(pool_->mu);
    pool_->free.push_back(std::move(c));
  }
  if (!out)
    throw DataError(kSqliteOp,
                    detail::quoted(path_) + " table " + split_ + " item " + std::to_string(index) + ": " + err);
  return out;
}

std::optional<TensorItem> SqliteDataset::get(size_t index) const {
  auto blob = get_blob(index);
  if (!blob) return std::nullopt;
  return TensorItem::decode(blob->data(), blob->size(),
                            detail::quoted(path_) + " table " + split_ + " item " + std::to_string(index));
}

struct SqliteDatasetWriter::Conn {
  sqlite3* db = nullptr;
  sqlite3_stmt* insert = nullptr;
  bool open_tx = false;
  ~Conn() {
    sqlite3_finalize(insert);
    if (open_tx) sqlite3_exec(db, "ROLLBACK", nullptr, nullptr, nullptr);
    sqlite3_close(db);
  }
  void exec(const std::string& sql, const std::string& path) {
    char* msg = nullptr;
    if (sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &msg) != SQLITE_OK) {
      std::string m = msg ? msg : db_error(db);
      sqlite3_free(msg);
      throw DataError(kWriterOp, detail::quoted(path) + ": " + sql + ": " + m);
    }
  }
};

SqliteDatasetWriter::SqliteDatasetWriter(const std::string& path, const std::string& split, bool overwrite)
    : path_(path), split_(split), conn_(std::make_unique<Conn>()) {
  check_split(kWriterOp, split);
  if (sqlite3_open_v2(path.c_str(), &conn_->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr) != SQLITE_OK)
    throw DataError(kWriterOp, detail::quoted(path) + ": cannot open: " + db_error(conn_->db));
  conn_->exec("BEGIN IMMEDIATE", path);
  conn_->open_tx = true;
  if (overwrite) conn_->exec("DROP TABLE IF EXISTS " + split, path);
  conn_->exec("CREATE TABLE IF NOT EXISTS " + split + " (row_id INTEGER PRIMARY KEY, item BLOB NOT NULL)", path);
  sqlite3_stmt* count = nullptr;
  std::string sql = "SELECT COUNT(*) FROM " + split;
  if (sqlite3_prepare_v2(conn_->db, sql.c_str(), -1, &count, nullptr) == SQLITE_OK && sqlite3_step(count) == SQLITE_ROW)
    next_ = static_cast<size_t>(sqlite3_column_int64(count, 0));
  sqlite3_finalize(count);
  sql = "INSERT INTO " + split + " (row_id, item) VALUES (?, ?)";
  if (sqlite3_prepare_v2(conn_->db, sql.c_str(), -1, &conn_->insert, nullptr) != SQLITE_OK)
    throw DataError(kWriterOp, detail::quoted(path) + ": " + db_error(conn_->db));
}

SqliteDatasetWriter::~SqliteDatasetWriter() = default;

size_t SqliteDatasetWriter::write(const TensorItem& item) {
  std::vector<uint8_t> blob = item.encode();
  return write_blob(blob.data(), blob.size());
}

size_t SqliteDatasetWriter::write_blob(const uint8_t* data, size_t size) {
  if (!conn_) throw DataError(kWriterOp, detail::quoted(path_) + ": write after finish()");
  sqlite3_stmt* st = conn_->insert;
  sqlite3_reset(st);
  sqlite3_bind_int64(st, 1, static_cast<sqlite3_int64>(next_ + 1));
  // Zero-length blobs would bind as NULL with a null pointer; "" keeps them blobs.
  sqlite3_bind_blob64(st, 2, size ? data : reinterpret_cast<const uint8_t*>(""), size, SQLITE_STATIC);
  if (sqlite3_step(st) != SQLITE_DONE)
    throw DataError(kWriterOp, detail::quoted(path_) + " table " + split_ + " item " + std::to_string(next_) + ": " +
                                   db_error(conn_->db));
  sqlite3_reset(st);
  sqlite3_clear_bindings(st);
  return next_++;
}

void SqliteDatasetWriter::finish() {
  if (!conn_) return;
  sqlite3_finalize(conn_->insert);
  conn_->insert = nullptr;
  conn_->exec("COMMIT", path_);
  conn_->open_tx = false;
  conn_.reset();
}

}  // namespace burn::data
