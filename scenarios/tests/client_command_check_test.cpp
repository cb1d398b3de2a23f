#include "scenarios/commands/client_command_check.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include "common/temp_dir.hpp"

namespace retryproof::scenarios {
namespace {

class ClientCommandCheck : public ::testing::Test {
 protected:
  ClientCommandCheck() {
    for (const char* name : {"myclient", "python3", "python3.11", "node"}) {
      const auto program = bin_.write(name, "#!/bin/sh\necho '{}'\n");
      chmod(program.c_str(), 0755);
    }
    bin_.write("notexec.py", "print()\n");
    std::filesystem::create_directory(bin_.path() / "adir");
  }
  std::string in_bin(const std::string& name) const { return (bin_.path() / name).string(); }
  std::string path() const { return bin_.path().string() + ":/nonexistent"; }

  TempDir bin_;
};

TEST_F(ClientCommandCheck, AProgramThatIsThereMayRun) {
  EXPECT_EQ(command_problem("myclient --flag", path()), std::nullopt);
  EXPECT_EQ(command_problem(in_bin("myclient"), path()), std::nullopt);
  EXPECT_EQ(command_problem("  myclient", path()), std::nullopt);
}

TEST_F(ClientCommandCheck, APathThatIsNotThereIsOneSentence) {
  EXPECT_EQ(command_problem(in_bin("nope.py") + " --x", path()),
            in_bin("nope.py") + " does not exist");
  EXPECT_EQ(command_problem(in_bin("adir"), path()),
            in_bin("adir") + " is a directory, not a program");
  const auto not_executable = command_problem(in_bin("notexec.py"), path());
  ASSERT_TRUE(not_executable);
  EXPECT_TRUE(not_executable->starts_with(in_bin("notexec.py") + " is not executable: chmod +x"))
      << *not_executable;
}

TEST_F(ClientCommandCheck, ANameNotOnPathIsOneSentenceWithTheClosestProgram) {
  EXPECT_EQ(command_problem("myclinet --x", path()),
            "\"myclinet\" is not a program on PATH (did you mean \"myclient\"?)");
  EXPECT_EQ(command_problem("zzzzzzzz", path()), "\"zzzzzzzz\" is not a program on PATH");
}

TEST_F(ClientCommandCheck, AnInterpretersScriptThatIsNotThereIsOneSentence) {
  EXPECT_EQ(command_problem("python3 nothere.py --flag", path()),
            "nothere.py does not exist (the script python3 would run)");
  EXPECT_EQ(command_problem("python3.11 " + in_bin("nope.py"), path()),
            in_bin("nope.py") + " does not exist (the script python3.11 would run)");
  EXPECT_EQ(command_problem(in_bin("node") + " lib/nothere.mjs", path()),
            "lib/nothere.mjs does not exist (the script " + in_bin("node") + " would run)");
  EXPECT_EQ(command_problem("python3 " + in_bin("notexec.py"), path()), std::nullopt)
      << "a script need not be executable: the interpreter reads it";
}

TEST_F(ClientCommandCheck, WhatIsNotAScriptPathAfterAnInterpreterIsLeftToIt) {
  for (const char* command :
       {"python3 -m client", "python3 -u nothere.py", "node inspect", "python3",
        "python3 \"no where.py\"", "python3 $SCRIPT", "myclient nothere.py"}) {
    EXPECT_EQ(command_problem(command, path()), std::nullopt) << command;
  }
}

TEST_F(ClientCommandCheck, WhatOnlyTheShellKnowsIsLeftToTheShell) {
  for (const char* command :
       {"FOO=1 python3 x.py", "cd somewhere && ./x", "exec ./x", "exit 3", "echo '{}'",
        "\"./quoted name\"", "$HOME/bin/x", "~/bin/x", "./x;y", "(./x)", "{ ./x; }",
        "if true; then ./x; fi", "./x>out", "`which x`", "./*.py", ". ./env.sh", "! ./x", ""}) {
    EXPECT_EQ(command_problem(command, path()), std::nullopt) << command;
  }
}

TEST_F(ClientCommandCheck, AnEmptyPathEntryIsTheWorkingDirectory) {
  EXPECT_NE(command_problem("myclient", "/nonexistent"), std::nullopt);
  const auto cwd = std::filesystem::current_path();
  std::filesystem::current_path(bin_.path());
  EXPECT_EQ(command_problem("myclient", "/nonexistent:"), std::nullopt);
  std::filesystem::current_path(cwd);
}

}  // namespace
}  // namespace retryproof::scenarios
