#include "views/capture/capturedialog.h"

#include "core/capture/connectioncheck.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QSpinBox>
#include <QTableWidget>
#include <QTextBrowser>
#include <QVBoxLayout>

namespace tracedesk::views {

namespace capture = core::capture;

namespace {

const char *const kGroup = "capture";

QString q(const std::string &s) { return QString::fromStdString(s); }

QString megabytes(quint64 bytes)
{
    return QLocale(QLocale::English).toString(double(bytes) / (1024.0 * 1024.0), 'f', 1) +
           " MB";
}

QString secondsText(qint64 ms) { return QString::number(double(ms) / 1000.0, 'f', 1) + " s"; }

QComboBox *levelBox(const QStringList &labels, const char *name)
{
    auto *box = new QComboBox;
    box->setObjectName(name);
    for (int i = 0; i < labels.size(); ++i)
        box->addItem(QString("%1 - %2").arg(i).arg(labels[i]), i);
    return box;
}

QSpinBox *msBox(int max, const char *name)
{
    auto *box = new QSpinBox;
    box->setObjectName(name);
    box->setRange(0, max);
    box->setSingleStep(100);
    box->setSuffix(" ms");
    box->setGroupSeparatorShown(true);
    return box;
}

} // namespace

CaptureDialog::CaptureDialog(QWidget *parent) : QDialog(parent)
{
    setWindowTitle(tr("Capture Profile"));
    buildUi();
    loadSettings();
    setRunning(false);
}

CaptureDialog::~CaptureDialog()
{
    m_progressReceiver->close();
    if (m_session)
        m_session->cancel();
    m_captureJob.stop();
    m_checkJob.stop();
}

void CaptureDialog::buildUi()
{
    m_addresses = new QLineEdit;
    m_addresses->setObjectName("addresses");
    m_addresses->setPlaceholderText(
        tr("host:port, e.g. localhost:6000 or 10.0.0.2:9999,10.0.0.3:9999"));
    m_addresses->setToolTip(tr("The profiler server started by tf.profiler.experimental.server."
                               "start(port) or jax.profiler.start_server(port). Separate several "
                               "hosts with commas; they are captured in parallel."));
    m_testButton = new QPushButton(tr("Test connection"));
    m_testButton->setObjectName("testConnection");
    auto *addressRow = new QHBoxLayout;
    addressRow->addWidget(m_addresses, 1);
    addressRow->addWidget(m_testButton);
    m_connectionStatus = new QLabel;
    m_connectionStatus->setObjectName("connectionStatus");
    m_connectionStatus->setWordWrap(true);
    m_connectionStatus->setVisible(false);

    m_duration = msBox(3600000, "durationMs");
    m_duration->setMinimum(1);
    m_delay = msBox(3600000, "delayMs");
    m_hostLevel = levelBox({tr("off"), tr("user events"), tr("+ framework events (default)"),
                            tr("verbose")}, "hostLevel");
    m_deviceLevel = levelBox({tr("off"), tr("on")}, "deviceLevel");
    m_pythonLevel = levelBox({tr("off"), tr("on")}, "pythonLevel");
    m_retries = new QSpinBox;
    m_retries->setObjectName("retries");
    m_retries->setRange(0, 100);
    m_advanced = new QPlainTextEdit;
    m_advanced->setObjectName("advancedOptions");
    m_advanced->setPlaceholderText(tr("key=value per line, e.g. gpu_pm_sample_counters=..."));
    m_advanced->setToolTip(tr("Standard names (host_tracer_level, device_type, "
                              "override_hostname, ...) set that option; other keys are passed "
                              "to the server as advanced configuration."));
    m_advanced->setFixedHeight(m_advanced->fontMetrics().lineSpacing() * 3 + 12);
    m_logdir = new QLineEdit;
    m_logdir->setObjectName("logdir");
    m_browse = new QPushButton(tr("Browse..."));
    m_browse->setObjectName("browse");
    auto *logdirRow = new QHBoxLayout;
    logdirRow->addWidget(m_logdir, 1);
    logdirRow->addWidget(m_browse);

    auto *form = new QFormLayout;
    form->addRow(tr("Service address(es):"), addressRow);
    form->addRow(QString(), m_connectionStatus);
    form->addRow(tr("Duration:"), m_duration);
    form->addRow(tr("Delay before start:"), m_delay);
    form->addRow(tr("Host tracer level:"), m_hostLevel);
    form->addRow(tr("Device tracer level:"), m_deviceLevel);
    form->addRow(tr("Python tracer level:"), m_pythonLevel);
    form->addRow(tr("Retries:"), m_retries);
    form->addRow(tr("Extra options:"), m_advanced);
    form->addRow(tr("Save into logdir:"), logdirRow);

    m_progress = new QTableWidget(0, 2);
    m_progress->setObjectName("progressTable");
    m_progress->setHorizontalHeaderLabels({tr("Host"), tr("Progress")});
    m_progress->horizontalHeader()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    m_progress->horizontalHeader()->setSectionResizeMode(1, QHeaderView::Stretch);
    m_progress->verticalHeader()->setVisible(false);
    m_progress->setSelectionMode(QAbstractItemView::NoSelection);
    m_progress->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_progress->setMinimumHeight(90);
    m_results = new QTextBrowser;
    m_results->setObjectName("results");
    m_results->setOpenLinks(false);
    m_results->setPlaceholderText(tr("Results per host appear here."));
    m_results->setMinimumHeight(90);

    m_captureButton = new QPushButton(tr("Capture"));
    m_captureButton->setObjectName("capture");
    m_captureButton->setDefault(true);
    m_stopButton = new QPushButton(tr("Stop early"));
    m_stopButton->setObjectName("stopEarly");
    m_stopButton->setToolTip(tr("Ask the servers to stop recording now and send what they have"));
    m_cancelButton = new QPushButton(tr("Close"));
    m_cancelButton->setObjectName("cancel");
    auto *buttons = new QDialogButtonBox;
    buttons->addButton(m_captureButton, QDialogButtonBox::ActionRole);
    buttons->addButton(m_stopButton, QDialogButtonBox::ActionRole);
    buttons->addButton(m_cancelButton, QDialogButtonBox::RejectRole);

    auto *layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(m_progress, 1);
    layout->addWidget(m_results, 1);
    layout->addWidget(buttons);
    resize(640, 640);

    connect(m_testButton, &QPushButton::clicked, this, &CaptureDialog::testConnection);
    connect(m_browse, &QPushButton::clicked, this, &CaptureDialog::browseLogdir);
    connect(m_captureButton, &QPushButton::clicked, this, &CaptureDialog::startCapture);
    connect(m_stopButton, &QPushButton::clicked, this, &CaptureDialog::stopEarly);
    connect(m_cancelButton, &QPushButton::clicked, this, &CaptureDialog::cancelCapture);
}

void CaptureDialog::loadSettings()
{
    QSettings s;
    s.beginGroup(kGroup);
    m_addresses->setText(s.value("addresses").toString());
    m_duration->setValue(s.value("durationMs", 1000).toInt());
    m_delay->setValue(s.value("delayMs", 0).toInt());
    m_hostLevel->setCurrentIndex(qBound(0, s.value("hostTracerLevel", 2).toInt(), 3));
    m_deviceLevel->setCurrentIndex(qBound(0, s.value("deviceTracerLevel", 1).toInt(), 1));
    m_pythonLevel->setCurrentIndex(qBound(0, s.value("pythonTracerLevel", 0).toInt(), 1));
    m_retries->setValue(s.value("retries", 3).toInt());
    m_advanced->setPlainText(s.value("extraOptions").toString());
    m_logdir->setText(s.value("logdir").toString());
}

void CaptureDialog::saveSettings() const
{
    QSettings s;
    s.beginGroup(kGroup);
    s.setValue("addresses", m_addresses->text().trimmed());
    s.setValue("durationMs", m_duration->value());
    s.setValue("delayMs", m_delay->value());
    s.setValue("hostTracerLevel", m_hostLevel->currentIndex());
    s.setValue("deviceTracerLevel", m_deviceLevel->currentIndex());
    s.setValue("pythonTracerLevel", m_pythonLevel->currentIndex());
    s.setValue("retries", m_retries->value());
    s.setValue("extraOptions", m_advanced->toPlainText());
    s.setValue("logdir", m_logdir->text().trimmed());
}

void CaptureDialog::setDefaultLogdir(const QString &dir)
{
    if (m_logdir->text().trimmed().isEmpty())
        m_logdir->setText(dir);
}

void CaptureDialog::browseLogdir()
{
    const QString start = m_logdir->text().isEmpty() ? QDir::homePath() : m_logdir->text();
    const QString dir = QFileDialog::getExistingDirectory(this, tr("Save Captures Into"), start);
    if (!dir.isEmpty())
        m_logdir->setText(dir);
}

QString CaptureDialog::optionsFromForm(capture::CaptureOptions *options) const
{
    core::Result<std::vector<std::string>> addresses =
        capture::parseAddresses(m_addresses->text().toStdString());
    if (!addresses)
        return q(addresses.message());
    options->addresses = addresses.value();
    options->durationMs = uint64_t(m_duration->value());
    options->delayMs = uint64_t(m_delay->value());
    options->hostTracerLevel = uint32_t(m_hostLevel->currentIndex());
    options->deviceTracerLevel = uint32_t(m_deviceLevel->currentIndex());
    options->pythonTracerLevel = uint32_t(m_pythonLevel->currentIndex());
    options->retries = m_retries->value();
    options->advanced.clear();
    for (const QString &line : m_advanced->toPlainText().split('\n')) {
        const QString t = line.trimmed();
        if (t.isEmpty() || t.startsWith('#'))
            continue;
        core::Result<capture::AdvancedOption> o = capture::parseAdvancedOption(t.toStdString());
        if (!o)
            return q(o.message());
        options->advanced.push_back(o.value());
    }
    options->logdir = m_logdir->text().trimmed().toStdString();
    if (options->logdir.empty())
        return tr("Choose the logdir to save the capture into.");
    core::Result<bool> valid = capture::validateOptions(*options);
    return valid ? QString() : q(valid.message());
}

void CaptureDialog::setRunning(bool running)
{
    for (QWidget *w : std::initializer_list<QWidget *>{
             m_addresses, m_testButton, m_duration, m_delay, m_hostLevel, m_deviceLevel,
             m_pythonLevel, m_retries, m_advanced, m_logdir, m_browse, m_captureButton})
        w->setEnabled(!running);
    m_stopButton->setEnabled(running);
    m_cancelButton->setText(running ? tr("Cancel") : tr("Close"));
}

void CaptureDialog::startCapture()
{
    if (m_session)
        return;
    capture::CaptureOptions options;
    const QString problem = optionsFromForm(&options);
    if (!problem.isEmpty()) {
        m_results->setPlainText(problem);
        return;
    }
    saveSettings();
    m_progress->setRowCount(int(options.addresses.size()));
    for (int i = 0; i < int(options.addresses.size()); ++i) {
        m_progress->setItem(i, 0, new QTableWidgetItem(q(options.addresses[size_t(i)])));
        auto *bar = new QProgressBar;
        bar->setRange(0, 1000);
        bar->setValue(0);
        bar->setFormat(tr("Waiting"));
        m_progress->setCellWidget(i, 1, bar);
    }
    m_results->clear();
    m_session = std::make_shared<capture::CaptureSession>(options);
    m_session->setProgressCallback(
        [this, receiver = m_progressReceiver](const capture::CaptureSnapshot &s) {
            receiver->post([this, s] { showProgress(s); });
        });
    setRunning(true);
    auto session = m_session;
    m_captureJob.run<capture::CaptureResult>(
        this, [session] { return session->run(); },
        [this](capture::CaptureResult result) { showResult(result); });
}

void CaptureDialog::stopEarly()
{
    if (!m_session)
        return;
    m_session->stopEarly();
    m_stopButton->setEnabled(false);
}

void CaptureDialog::cancelCapture()
{
    if (m_session)
        m_session->cancel();
    else
        QDialog::reject();
}

void CaptureDialog::reject()
{
    // Escape or the window's close button: never leave a capture running behind.
    if (m_session) {
        m_closeWhenDone = true;
        m_session->cancel();
        return;
    }
    QDialog::reject();
}

void CaptureDialog::showProgress(const capture::CaptureSnapshot &snapshot)
{
    if (!m_session)
        return;
    for (int i = 0; i < int(snapshot.hosts.size()) && i < m_progress->rowCount(); ++i) {
        const capture::HostProgress &h = snapshot.hosts[size_t(i)];
        auto *bar = qobject_cast<QProgressBar *>(m_progress->cellWidget(i, 1));
        if (!bar)
            continue;
        const QString attempt = h.attempt > 1 ? tr(" (attempt %1)").arg(h.attempt) : QString();
        const qint64 duration = qint64(h.durationMs);
        switch (h.state) {
        case capture::CaptureState::Idle:
            bar->setFormat(tr("Waiting"));
            break;
        case capture::CaptureState::Connecting:
            bar->setValue(0);
            bar->setFormat(tr("Connecting...") + attempt);
            break;
        case capture::CaptureState::Capturing:
            if (h.elapsedMs < 0) {
                bar->setValue(0);
                bar->setFormat(tr("Starting in %1").arg(secondsText(-h.elapsedMs)) + attempt);
            } else {
                bar->setValue(int(800 * qMin(h.elapsedMs, duration) / qMax<qint64>(1, duration)));
                bar->setFormat(tr("Capturing %1 of %2").arg(secondsText(h.elapsedMs),
                                                            secondsText(duration)) + attempt);
            }
            break;
        case capture::CaptureState::Receiving:
            bar->setValue(850);
            bar->setFormat(tr("Receiving the trace...") + attempt);
            break;
        case capture::CaptureState::Saving:
            bar->setValue(850 + int(150 * h.bytesSaved / qMax<quint64>(1, h.bytesReceived)));
            bar->setFormat(tr("Received %1, saving %2").arg(megabytes(h.bytesReceived),
                                                           megabytes(h.bytesSaved)));
            break;
        case capture::CaptureState::Done:
            bar->setValue(1000);
            bar->setFormat(tr("Saved"));
            break;
        case capture::CaptureState::Failed:
            bar->setFormat(tr("Failed"));
            break;
        case capture::CaptureState::Cancelled:
            bar->setFormat(tr("Cancelled"));
            break;
        }
    }
}

void CaptureDialog::showResult(const capture::CaptureResult &result)
{
    m_session.reset();
    setRunning(false);
    QString html;
    for (size_t i = 0; i < result.hosts.size(); ++i) {
        const capture::HostOutcome &h = result.hosts[i];
        const bool saved = h.state == capture::CaptureState::Done;
        const QString colour = saved ? "#1b7f2a" : (h.state == capture::CaptureState::Cancelled
                                                        ? "#7a6a00" : "#b3261e");
        html += QString("<p><b>%1</b>: <span style='color:%2'>%3</span><br>%4</p>")
                    .arg(q(h.address).toHtmlEscaped(), colour,
                         saved ? tr("saved") : q(capture::stateName(h.state)),
                         q(h.message).toHtmlEscaped());
        if (auto *bar = qobject_cast<QProgressBar *>(m_progress->cellWidget(int(i), 1))) {
            bar->setValue(saved ? 1000 : bar->value());
            bar->setFormat(saved ? tr("Saved %1").arg(megabytes(h.bytes))
                                 : (h.state == capture::CaptureState::Cancelled ? tr("Cancelled")
                                                                               : tr("Failed")));
        }
    }
    html += "<p>" + q(result.message).toHtmlEscaped() + "</p>";
    m_results->setHtml(html);
    const bool saved = result.savedCount() > 0 && !result.runDir.empty() &&
                       result.state != capture::CaptureState::Cancelled;
    if (saved) {
        m_lastRunDir = q(result.runDir);
        emit captureSaved(m_lastRunDir);
    }
    emit captureFinished(saved);
    if (m_closeWhenDone) {
        m_closeWhenDone = false;
        QDialog::reject();
    }
}

void CaptureDialog::testConnection()
{
    core::Result<std::vector<std::string>> addresses =
        capture::parseAddresses(m_addresses->text().toStdString());
    m_connectionStatus->setVisible(true);
    if (!addresses) {
        m_connectionStatus->setText(q(addresses.message()));
        return;
    }
    m_connectionStatus->setText(tr("Testing..."));
    m_testButton->setEnabled(false);
    const std::vector<std::string> list = addresses.value();
    m_checkJob.run<QString>(
        this,
        [list] {
            // All addresses at once so the whole check stays within the 3 s limit.
            std::vector<capture::ConnectionCheck> checks(list.size());
            std::vector<std::thread> threads;
            for (size_t i = 0; i < list.size(); ++i)
                threads.emplace_back([&, i] { checks[i] = capture::checkConnection(list[i]); });
            for (std::thread &t : threads)
                t.join();
            QStringList lines;
            for (const capture::ConnectionCheck &c : checks)
                lines << (c.grpcAnswered ? QStringLiteral("\u2714 ") : QStringLiteral("\u2718 ")) +
                             q(c.message);
            return lines.join('\n');
        },
        [this](QString text) {
            m_connectionStatus->setText(text);
            m_testButton->setEnabled(!m_session);
        });
}

} // namespace tracedesk::views
