#pragma once

// CaptureDialog: captures a live profile from running profiler servers into a logdir
// (File > Capture...). The user enters service addresses, duration, delay, tracer levels,
// retries, extra key=value options and the destination logdir; "Test connection" checks each
// address within 3 s; "Capture" runs a core::capture::CaptureSession on a worker thread and
// shows per-host progress, then a per-host result (saved path or the reason in plain words).
// "Stop early" asks the servers to stop recording and send what they have; "Cancel" abandons
// the capture (nothing partial is left) or, when idle, closes the dialog.
//
// When a run was saved the dialog emits captureSaved(runDir) and stays open with the results.
// Last-used values persist in QSettings (group "capture"). GUI thread only.

#include "core/capture/capturesession.h"
#include "views/timeline/backgroundjob.h"

#include <QDialog>

#include <memory>

class QComboBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QPushButton;
class QSpinBox;
class QTableWidget;
class QTextBrowser;

namespace tracedesk::views {

class CaptureDialog : public QDialog
{
    Q_OBJECT

public:
    explicit CaptureDialog(QWidget *parent = nullptr);
    ~CaptureDialog() override;

    // Used when no logdir was remembered yet (e.g. the folder of the open trace).
    void setDefaultLogdir(const QString &dir);
    bool isCapturing() const { return m_session != nullptr; }
    // The run directory of the last successful capture, if any.
    QString lastRunDir() const { return m_lastRunDir; }

    // Builds the options from the form; returns an error text when something is invalid.
    QString optionsFromForm(core::capture::CaptureOptions *options) const;

public slots:
    void startCapture();
    void stopEarly();
    void cancelCapture();
    void testConnection();
    void reject() override;

signals:
    void captureSaved(const QString &runDir);
    // Emitted after every capture, saved or not (for tests and status bars).
    void captureFinished(bool saved);

private:
    void buildUi();
    void loadSettings();
    void saveSettings() const;
    void setRunning(bool running);
    void showProgress(const core::capture::CaptureSnapshot &snapshot);
    void showResult(const core::capture::CaptureResult &result);
    void browseLogdir();

    QLineEdit *m_addresses = nullptr;
    QPushButton *m_testButton = nullptr;
    QLabel *m_connectionStatus = nullptr;
    QSpinBox *m_duration = nullptr;
    QSpinBox *m_delay = nullptr;
    QComboBox *m_hostLevel = nullptr;
    QComboBox *m_deviceLevel = nullptr;
    QComboBox *m_pythonLevel = nullptr;
    QSpinBox *m_retries = nullptr;
    QPlainTextEdit *m_advanced = nullptr;
    QLineEdit *m_logdir = nullptr;
    QPushButton *m_browse = nullptr;
    QTableWidget *m_progress = nullptr;
    QTextBrowser *m_results = nullptr;
    QPushButton *m_captureButton = nullptr;
    QPushButton *m_stopButton = nullptr;
    QPushButton *m_cancelButton = nullptr;

    std::shared_ptr<core::capture::CaptureSession> m_session;
    // Progress arrives on the session's thread, which may outlive this dialog.
    std::shared_ptr<GuardedReceiver> m_progressReceiver = GuardedReceiver::create(this);
    BackgroundJob m_captureJob;
    BackgroundJob m_checkJob;
    bool m_closeWhenDone = false;
    QString m_lastRunDir;
};

} // namespace tracedesk::views
