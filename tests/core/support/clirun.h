#pragma once

// Runs the built tracedesk-cli (TRACEDESK_CLI) and keeps what it printed, for the CLI tests.

#include <QByteArray>
#include <QProcess>
#include <QStringList>

namespace clitest {

struct CliRun
{
    int exitCode = -1;   // -1: did not finish in time; -2: crashed
    QByteArray out;
    QByteArray err;
};

inline CliRun runCli(const QStringList &args, int timeoutMs = 120000)
{
    QProcess p;
    p.start(QStringLiteral(TRACEDESK_CLI), args);
    CliRun r;
    if (!p.waitForFinished(timeoutMs))
        return r;
    r.exitCode = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -2;
    r.out = p.readAllStandardOutput();
    r.err = p.readAllStandardError();
    return r;
}

} // namespace clitest
